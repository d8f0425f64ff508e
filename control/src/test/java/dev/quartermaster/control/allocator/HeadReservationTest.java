package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.meta.ObjectMeta;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link HeadReservation} alone, over a snapshot: the devices that free up soonest by their
 * holders' deadlines, the start they give, never with a holder without one, nothing when the gang
 * could not fit an empty fleet; and {@link HeadOfLine}: who is the head, and whom it keeps off.
 */
class HeadReservationTest {
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu",
          new DeviceClass(
              ObjectMeta.named("gpu"),
              new DeviceClassSpec("gpu", List.of()),
              DeviceClassStatus.EMPTY));

  /** A ready node of 4 GPUs whose {@code held} map gives holders (claim uids) of some. */
  private static NodeView node(String name, Map<String, String> held) {
    var devices = new ArrayList<Device>();
    for (int i = 0; i < 4; i++) {
      devices.add(new Device("gpu-" + i, "gpu", Map.of(), Device.Health.Healthy, ""));
    }
    return new NodeView(
        name,
        Optional.empty(),
        devices,
        held,
        NodeView.Sources.of(Optional.empty(), Optional.empty(), List.of()),
        Map.of());
  }

  private static List<GangFit.Member> gang(int members) {
    var out = new ArrayList<GangFit.Member>();
    for (int i = 0; i < members; i++) {
      out.add(
          new GangFit.Member(
              "big-" + i,
              List.of(
                  new ClaimNeed(
                      "big-" + i + "-gpu",
                      List.of(new DeviceRequest("gpu", "gpu", 4, List.of()))))));
    }
    return out;
  }

  /** a ends at 30, b at 10, c never (no deadline); the clock is at 0. */
  private static final Map<String, OptionalLong> ENDS =
      Map.of("a", OptionalLong.of(30), "b", OptionalLong.of(10), "c", OptionalLong.empty());

  private static List<NodeView> fleet() {
    return List.of(
        node("node-1", Map.of("gpu-0", "a")),
        node("node-2", Map.of("gpu-0", "b", "gpu-1", "b")),
        node("node-3", Map.of("gpu-3", "c")));
  }

  private static Optional<HeadReservation> reserve(List<NodeView> nodes, int members) {
    return HeadReservation.of(
        "gang/big/workers",
        nodes,
        uid -> ENDS.getOrDefault(uid, OptionalLong.of(0)),
        gang(members),
        CLASSES,
        GangTopology.ANYWHERE,
        0);
  }

  @Test
  void theDevicesThatFreeUpSoonestAndTheirStart() {
    var r = reserve(fleet(), 2).orElseThrow();
    assertThat(r.start()).hasValue(30);
    assertThat(r.devices())
        .isEqualTo(
            Map.of(
                "node-1", Set.of("gpu-0", "gpu-1", "gpu-2", "gpu-3"),
                "node-2", Set.of("gpu-0", "gpu-1", "gpu-2", "gpu-3")));
    assertThat(r.holders()).containsExactlyInAnyOrder("a", "b");
    assertThat(r.size()).isEqualTo(8);
  }

  @Test
  void oneNodeNeededStartsWhenTheSoonerHolderEnds() {
    var r = reserve(fleet(), 1).orElseThrow();
    assertThat(r.start()).hasValue(10);
    assertThat(r.devices()).containsOnlyKeys("node-2");
  }

  @Test
  void aHolderWithoutADeadlineMakesTheStartUnknown() {
    var r = reserve(fleet(), 3).orElseThrow();
    assertThat(r.start()).isEmpty();
    assertThat(r.devices()).containsOnlyKeys("node-1", "node-2", "node-3");
    assertThat(r.admits(OptionalLong.of(1)))
        .as("nothing backfills past an unknown start")
        .isFalse();
  }

  @Test
  void aGangTheFleetCanNeverHoldReservesNothing() {
    assertThat(reserve(fleet(), 4)).isEmpty();
  }

  /** Only a job gone before the start may take reserved devices. */
  @Test
  void aJobBackfillsOnlyIfItEndsBeforeTheStart() {
    var r = reserve(fleet(), 2).orElseThrow();
    assertThat(r.admits(OptionalLong.of(25))).isTrue();
    assertThat(r.admits(OptionalLong.of(30))).isTrue();
    assertThat(r.admits(OptionalLong.of(31))).isFalse();
    assertThat(r.admits(OptionalLong.empty())).as("no deadline").isFalse();
  }

  /**
   * Computed again after a job backfilled onto it (ends at 25, before 30), the start is no later:
   * the earlier reservation's devices are all free by its start.
   */
  @Test
  void aBackfilledJobDoesNotDelayTheStart() {
    var before = reserve(fleet(), 2).orElseThrow();
    var after =
        HeadReservation.of(
                "gang/big/workers",
                List.of(
                    node("node-1", Map.of("gpu-0", "a", "gpu-1", "d")),
                    node("node-2", Map.of("gpu-0", "b", "gpu-1", "b")),
                    node("node-3", Map.of("gpu-3", "c"))),
                uid -> uid.equals("d") ? OptionalLong.of(25) : ENDS.get(uid),
                gang(2),
                CLASSES,
                GangTopology.ANYWHERE,
                0)
            .orElseThrow();
    assertThat(after.start().getAsLong()).isLessThanOrEqualTo(before.start().getAsLong());
  }

  @Test
  void theHeadIsTheHighestPriorityThenTheOldestAndKeepsOthersOff() {
    var line = new HeadOfLine(Backfill.RESERVE);
    var t0 = Instant.parse("2026-03-01T12:00:00Z");
    assertThat(line.waits(new HeadOfLine.Place("gang/old/w", 0, t0))).isTrue();
    var r = reserve(fleet(), 2).orElseThrow();
    var mine = new HeadReservation("gang/old/w", r.start(), r.devices(), r.holders());
    line.reserve(mine);
    assertThat(line.waits(new HeadOfLine.Place("gang/young/w", 0, t0.plusSeconds(5)))).isFalse();
    assertThat(line.closedTo("gang/young/w", OptionalLong.of(40))).contains(mine);
    assertThat(line.closedTo("task/small", OptionalLong.of(20))).as("backfills").isEmpty();
    assertThat(line.closedTo("gang/old/w", OptionalLong.empty())).as("its own").isEmpty();
    // An urgent gang takes the head: the old head's reservation goes.
    assertThat(line.waits(new HeadOfLine.Place("gang/urgent/w", 100, t0.plusSeconds(9)))).isTrue();
    assertThat(line.reservation()).isEmpty();
    assertThat(line.left("gang/urgent/w")).as("held none yet").isFalse();
    line.reserve(mine);
    assertThat(line.left("gang/old/w")).as("the head held it").isTrue();
    assertThat(line.closedTo("gang/young/w", OptionalLong.empty())).isEmpty();
  }

  @Test
  void withBackfillOffNoOneWaitsInLine() {
    var line = new HeadOfLine(Backfill.OFF);
    assertThat(line.waits(new HeadOfLine.Place("gang/big/w", 0, Instant.EPOCH))).isFalse();
    assertThat(line.waiting()).isEmpty();
  }
}
