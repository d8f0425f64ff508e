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
class TimeSliceOfferTest {
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
    var offer = new TimeSliceOffer();
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
    var offer = new TimeSliceOffer();
    offer.wish(Map.of("gpu-0", GpuSharing.timeSliced(4)));
    offer.offer("gpu-0", held.equals("gpu-0") ? Set.of() : Set.of("gpu-0-ts-0"));
    offer.wish(held.equals("gpu-0") ? Map.of("gpu-0", GpuSharing.timeSliced(4)) : Map.of());
    var fresh = new TimeSliceOffer();
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
    var offer = new TimeSliceOffer();
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
}
