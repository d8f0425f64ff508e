package dev.quartermaster.agent.devices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.node.GpuSharing;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a GPU not in MIG mode offers, by the wish, what it offered before and what the ledger holds:
 * the wish is taken only where nothing held would vanish by it. A naive offer (the wish alone)
 * would publish replicas beside a held whole GPU, or the whole GPU beside held replicas.
 */
class SharingOfferTest {
  @ParameterizedTest(name = "before {0}, wish {1}, held [{2}] -> {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        // before | wish (0: whole; -1: not told yet) | held | offered (0: whole) | waits
        "0 | 4  |                        | 4 | false",
        "0 | 0  |                        | 0 | false",
        "4 | 0  |                        | 0 | false",
        "4 | 2  |                        | 2 | false",
        // the whole GPU held: it stays whole until released
        "0 | 4  | gpu-0                  | 0 | true",
        "0 | 4  | gpu-1                  | 4 | false",
        // replicas held: kept while one that would vanish is held
        "4 | 0  | gpu-0-ts-1             | 4 | true",
        "4 | 2  | gpu-0-ts-3             | 4 | true",
        "4 | 2  | gpu-0-ts-1             | 2 | false",
        "4 | 8  | gpu-0-ts-3             | 8 | false",
        "4 | 4  | gpu-0-ts-0 gpu-0-ts-3  | 4 | false",
        // a restarted agent not yet told the wish offers what its ledger holds
        "0 | -1 | gpu-0-ts-2             | 3 | false",
        "0 | -1 |                        | 0 | false",
        // told after a restart with replicas held
        "0 | 4  | gpu-0-ts-2             | 4 | false",
      })
  void theWishIsTakenWhereNothingHeldVanishes(
      int before, int wish, String held, int offered, boolean waits) {
    var offer = new SharingOffer();
    if (before > 0) {
      offer.wish(Map.of("gpu-0", GpuSharing.timeSliced(before)));
      assertThat(offer.offer("gpu-0", Set.of()).replicas()).isEqualTo(before);
    }
    if (wish >= 0) {
      offer.wish(wish == 0 ? Map.of() : Map.of("gpu-0", GpuSharing.timeSliced(wish)));
    }
    var heldSet =
        held == null
            ? Set.<String>of()
            : Arrays.stream(held.trim().split(" ")).collect(Collectors.toSet());
    var now = offer.offer("gpu-0", heldSet);
    assertThat(now.replicas()).isEqualTo(offered);
    assertThat(now.note().isPresent()).as(now.note().orElse("no note")).isEqualTo(waits);
  }

  @ParameterizedTest
  @CsvSource({"gpu-0", "gpu-0-ts-0"})
  void aWaitSaysWhatItWaitsFor(String held) {
    var offer = new SharingOffer();
    offer.wish(Map.of("gpu-0", GpuSharing.timeSliced(4)));
    offer.offer("gpu-0", held.equals("gpu-0") ? Set.of() : Set.of("gpu-0-ts-0"));
    offer.wish(held.equals("gpu-0") ? Map.of("gpu-0", GpuSharing.timeSliced(4)) : Map.of());
    var fresh = new SharingOffer();
    fresh.wish(Map.of("gpu-0", GpuSharing.timeSliced(4)));
    var note =
        held.equals("gpu-0")
            ? fresh.offer("gpu-0", Set.of("gpu-0")).note()
            : offer.offer("gpu-0", Set.of("gpu-0-ts-0")).note();
    assertThat(note)
        .isEqualTo(
            Optional.of(
                held.equals("gpu-0")
                    ? "gpu-0: time-slicing by 4 waits until the GPU is released"
                    : "gpu-0: use whole waits until replica 0 is released"));
  }

  @org.junit.jupiter.api.Test
  void eachChangeOfFormIsToldOnce() {
    var offer = new SharingOffer();
    offer.wish(Map.of("gpu-0", GpuSharing.timeSliced(4)));
    offer.offer("gpu-0", Set.of());
    offer.offer("gpu-1", Set.of());
    assertThat(offer.drainChanges()).containsExactly("gpu-0: time-sliced by 4");
    offer.offer("gpu-0", Set.of());
    assertThat(offer.drainChanges()).isEmpty();
    offer.wish(Map.of());
    offer.offer("gpu-0", Set.of("gpu-0-ts-2")); // waits: no change
    assertThat(offer.drainChanges()).isEmpty();
    offer.offer("gpu-0", Set.of());
    assertThat(offer.drainChanges()).containsExactly("gpu-0: offered whole again");
  }

  private static GpuSharing sharing(String form) {
    var kind = form.substring(0, form.indexOf(' ') < 0 ? form.length() : form.indexOf(' '));
    return switch (kind) {
      case "mps" -> GpuSharing.mps(Integer.parseInt(form.substring(4)));
      case "ts" -> GpuSharing.timeSliced(Integer.parseInt(form.substring(3)));
      default -> throw new IllegalArgumentException(form);
    };
  }

  @ParameterizedTest(name = "before {0}, wish {1}, held [{2}] -> {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        // before | wish (whole; '-': not told yet) | held | offered | waits
        "whole  | mps 4 |                         | Mps[clients=4]         | false",
        "mps 4  | whole |                         | Whole[]                | false",
        "mps 4  | mps 2 | gpu-0-mps-50pct-1gib-0  | Mps[clients=2]         | false",
        "mps 4  | ts 2  |                         | TimeSliced[replicas=2] | false",
        // shares held: MPS stays until they are released
        "mps 4  | whole | gpu-0-mps-50pct-1gib-0  | Mps[clients=4]         | true",
        "mps 4  | ts 2  | gpu-0-mps-50pct-1gib-0  | Mps[clients=4]         | true",
        "mps 4  | whole | gpu-1-mps-50pct-1gib-0  | Whole[]                | false",
        // the whole GPU or a replica held: MPS waits
        "whole  | mps 4 | gpu-0                   | Whole[]                | true",
        "ts 4   | mps 4 | gpu-0-ts-1              | TimeSliced[replicas=4] | true",
        // a restarted agent not yet told offers what its ledger holds, and no client more
        "whole  | -     | gpu-0-mps-50pct-1gib-0  | Mps[clients=1]         | false",
      })
  void mpsIsTakenAndLeftOnlyWhereNoShareVanishes(
      String before, String wish, String held, String offered, boolean waits) {
    var offer = new SharingOffer();
    if (!before.equals("whole")) {
      offer.wish(Map.of("gpu-0", sharing(before)));
      offer.offer("gpu-0", Set.of());
    }
    if (!wish.equals("-")) {
      offer.wish(wish.equals("whole") ? Map.of() : Map.of("gpu-0", sharing(wish)));
    }
    var heldSet =
        held == null
            ? Set.<String>of()
            : Arrays.stream(held.trim().split(" ")).collect(Collectors.toSet());
    var now = offer.offer("gpu-0", heldSet);
    assertThat(now.form().toString()).isEqualTo(offered);
    assertThat(now.note().isPresent()).as(now.note().orElse("no note")).isEqualTo(waits);
  }
}
