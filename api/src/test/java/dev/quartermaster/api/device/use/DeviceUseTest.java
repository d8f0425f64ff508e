package dev.quartermaster.api.device.use;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The table of device use: which holdings exclude which, on a node whose {@code gpu-0} shares
 * counters with its MIG slices ({@link MigNode}), and the same devices with no counters declared
 * (today: only a device's own holding excludes it).
 */
class DeviceUseTest {
  private static final DeviceUse MIG = DeviceUse.of(MigNode.slice());
  private static final DeviceUse TODAY = DeviceUse.of(MigNode.today());

  /** Held devices (each by its own claim), the device asked for, free with counters, free today. */
  static Stream<Arguments> table() {
    return Stream.of(
        row("", "gpu-0", true, true),
        row("gpu-0", "gpu-0", false, false),
        row("gpu-0", "gpu-0-mig-1g-0", false, true),
        row("gpu-0", "gpu-0-mig-3g-1", false, true),
        row("gpu-0-mig-1g-0", "gpu-0", false, true),
        row("gpu-0-mig-3g-1", "gpu-0", false, true),
        row("gpu-0-mig-1g-0", "gpu-0-mig-1g-1", true, true),
        row(
            "gpu-0-mig-1g-0 gpu-0-mig-1g-1 gpu-0-mig-1g-2 gpu-0-mig-1g-3 gpu-0-mig-1g-4 gpu-0-mig-1g-5",
            "gpu-0-mig-1g-6",
            true,
            true),
        row("gpu-0-mig-3g-0", "gpu-0-mig-3g-1", true, true),
        // 3 + 1 + 3 compute fits 7, 4 + 1 + 4 memory does not fit 8
        row("gpu-0-mig-3g-0 gpu-0-mig-1g-0", "gpu-0-mig-3g-1", false, true),
        row("gpu-0-mig-3g-0 gpu-0-mig-3g-1", "gpu-0-mig-1g-0", false, true),
        row(
            "gpu-0-mig-3g-0 gpu-0-mig-1g-0 gpu-0-mig-1g-1 gpu-0-mig-1g-2",
            "gpu-0-mig-1g-3",
            true,
            true),
        row(
            "gpu-0-mig-3g-0 gpu-0-mig-1g-0 gpu-0-mig-1g-1 gpu-0-mig-1g-2 gpu-0-mig-1g-3",
            "gpu-0-mig-1g-4",
            false,
            true),
        row("gpu-0", "gpu-1", true, true),
        row("gpu-1", "gpu-1", false, false),
        row("gpu-1", "gpu-0-mig-1g-0", true, true),
        row("channel-0", "channel-0", false, false),
        row("gpu-0", "channel-0", true, true));
  }

  private static Arguments row(String held, String asked, boolean free, boolean freeToday) {
    return Arguments.of(held, asked, free, freeToday);
  }

  private static Map<String, String> heldBy(String held) {
    var out = new TreeMap<String, String>();
    Arrays.stream(held.split(" ")).filter(s -> !s.isEmpty()).forEach(d -> out.put(d, "claim-" + d));
    return out;
  }

  @ParameterizedTest(name = "held [{0}], {1}: free {2}, today {3}")
  @MethodSource("table")
  void freeClashAndJudgeAgree(String held, String asked, boolean free, boolean freeToday) {
    for (var use : List.of(MIG, TODAY)) {
      boolean expected = use == MIG ? free : freeToday;
      var holders = heldBy(held);
      assertThat(use.isFree(asked, Holders.of(holders))).as("free").isEqualTo(expected);
      // (c) for one more holding: a new claim taking it clashes exactly when it is not free
      var clash = use.clash(asked, "new-claim", Holders.of(holders));
      assertThat(clash.isEmpty()).as("no clash").isEqualTo(expected);
      // (c) over the node: the same holdings with the new one over-consume exactly then
      var all = new java.util.ArrayList<Holding<String>>();
      holders.forEach((d, h) -> all.add(new Holding<>(d, h)));
      all.add(new Holding<>(asked, "new-claim"));
      assertThat(use.overConsumed(all).isEmpty()).as("judge").isEqualTo(expected);
      // the held devices alone are always fine: every row starts from a valid node
      assertThat(use.overConsumed(all.subList(0, all.size() - 1))).isEmpty();
    }
  }

  @Test
  void aHolderTakingWhatItHoldsIsTheSameHolding() {
    var held = Map.of("gpu-0-mig-3g-0", "a", "gpu-1", "b");
    assertThat(MIG.clash("gpu-0-mig-3g-0", "a", Holders.of(held))).isEmpty();
    assertThat(MIG.clash("gpu-1", "b", Holders.of(held))).isEmpty();
    assertThat(MIG.overConsumed(List.of(new Holding<>("gpu-1", "b"), new Holding<>("gpu-1", "b"))))
        .isEmpty();
  }

  @Test
  void excludesIsWhatCannotBeHeldBesideIt() {
    assertThat(MIG.excludes("gpu-0"))
        .containsExactly(
            "gpu-0",
            "gpu-0-mig-1g-0",
            "gpu-0-mig-1g-1",
            "gpu-0-mig-1g-2",
            "gpu-0-mig-1g-3",
            "gpu-0-mig-1g-4",
            "gpu-0-mig-1g-5",
            "gpu-0-mig-1g-6",
            "gpu-0-mig-3g-0",
            "gpu-0-mig-3g-1");
    assertThat(MIG.excludes("gpu-0-mig-1g-3")).containsExactly("gpu-0-mig-1g-3", "gpu-0");
    assertThat(MIG.excludes("gpu-1")).containsExactly("gpu-1");
    assertThat(TODAY.excludes("gpu-0")).containsExactly("gpu-0");
    assertThat(TODAY).isSameAs(DeviceUse.WHOLE_DEVICES);
  }

  @Test
  void aClashSaysWhichCounterAndWho() {
    var clash = MIG.clash("gpu-0-mig-1g-0", "b", Holders.of(Map.of("gpu-0", "a"))).orElseThrow();
    assertThat(clash.describe(" on node node-1"))
        .isEqualTo(
            "device gpu-0-mig-1g-0 on node node-1 shares counter gpu-0/compute: 8 of 7 with device"
                + " gpu-0, held by a");
    var own = TODAY.clash("gpu-0", "b", Holders.of(Map.of("gpu-0", "a"))).orElseThrow();
    assertThat(own.describe()).isEqualTo("device gpu-0 is held by a");
    var judged =
        MIG.overConsumed(List.of(new Holding<>("gpu-0-mig-1g-0", "b"), new Holding<>("gpu-0", "a")))
            .orElseThrow();
    assertThat(judged.over().orElseThrow().counter()).isEqualTo(new Counter("gpu-0", "compute"));
    assertThat(Set.of(judged.holder(), judged.heldBy())).containsExactlyInAnyOrder("a", "b");
  }
}
