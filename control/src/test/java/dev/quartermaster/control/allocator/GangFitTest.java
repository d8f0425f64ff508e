package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link GangFit}, case by case: best fit on nodes, one value of a required key, the fewest values
 * of a preferred key, and how many would fit when not all do.
 */
class GangFitTest {
  private static final String RACK = "topology.quartermaster.dev/rack";
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu",
          new DeviceClass(
              ObjectMeta.named("gpu"),
              new DeviceClassSpec("gpu", List.of()),
              DeviceClassStatus.EMPTY));

  /** A ready node with {@code gpus} GPUs, the first {@code held} of them taken, in {@code rack}. */
  private static NodeView node(String name, int gpus, int held, Optional<String> rack) {
    var devices = new ArrayList<Device>();
    var taken = new HashMap<String, String>();
    for (int i = 0; i < gpus; i++) {
      devices.add(new Device("gpu-" + i, "gpu", Map.of(), Device.Health.Healthy, ""));
      if (i < held) {
        taken.put("gpu-" + i, "someone");
      }
    }
    return new NodeView(
        name,
        Optional.empty(),
        devices,
        taken,
        NodeView.Sources.of(Optional.empty(), Optional.empty(), List.of()),
        rack.map(r -> Map.of(RACK, r)).orElse(Map.of()));
  }

  private static NodeView node(String name, int free) {
    return node(name, 8, 8 - free, Optional.empty());
  }

  private static NodeView inRack(String name, int free, String rack) {
    return node(name, 8, 8 - free, Optional.of(rack));
  }

  private static List<GangFit.Member> members(int n, int gpus) {
    return members(n, "gpu", gpus);
  }

  /** {@code n} members, each one claim of {@code count} devices of class {@code deviceClass}. */
  static List<GangFit.Member> members(int n, String deviceClass, int count) {
    var out = new ArrayList<GangFit.Member>();
    for (int i = 0; i < n; i++) {
      out.add(
          new GangFit.Member(
              "m" + i,
              List.of(
                  new ClaimNeed(
                      "m" + i + "-" + deviceClass,
                      List.of(new DeviceRequest(deviceClass, deviceClass, count, List.of()))))));
    }
    return out;
  }

  /** Member → node, for a placement that fits. */
  private static Map<String, String> nodes(GangFit.Outcome outcome) {
    assertThat(outcome).isInstanceOf(GangFit.Outcome.Fits.class);
    var out = new TreeMap<String, String>();
    ((GangFit.Outcome.Fits) outcome).byMember().forEach((m, p) -> out.put(m, p.node()));
    return out;
  }

  @Test
  void eachMemberGoesToTheNodeWithTheFewestFreeDevicesThatStillHoldsIt() {
    var outcome =
        GangFit.fit(
            List.of(node("a", 8), node("b", 4), node("c", 2)),
            members(3, 2),
            CLASSES,
            GangTopology.ANYWHERE,
            FitPolicy.BEST_FIT);
    // c (2 free) takes one; then b (4 free) two: the whole free node a stays whole.
    assertThat(nodes(outcome))
        .containsExactly(Map.entry("m0", "c"), Map.entry("m1", "b"), Map.entry("m2", "b"));
  }

  @Test
  void membersOnOneNodeGetDistinctDevices() {
    var outcome =
        GangFit.fit(
            List.of(node("a", 8)),
            members(4, 2),
            CLASSES,
            GangTopology.ANYWHERE,
            FitPolicy.BEST_FIT);
    var devices = new ArrayList<String>();
    ((GangFit.Outcome.Fits) outcome)
        .byMember()
        .values()
        .forEach(p -> p.devices().values().forEach(ds -> ds.forEach(d -> devices.add(d.device()))));
    assertThat(devices).hasSize(8).doesNotHaveDuplicates();
  }

  @Test
  void aRequiredKeyKeepsEveryMemberInOneValueAndPrefersTheFullestValueThatHoldsThem() {
    var fleet =
        List.of(
            inRack("a", 4, "r0"),
            inRack("b", 4, "r0"),
            inRack("c", 4, "r1"),
            inRack("d", 4, "r1"),
            inRack("e", 4, "r1"),
            node("unlabelled", 8));
    var required = new GangTopology(Optional.of(RACK), Optional.empty());
    // Three of 4: only r1 holds them; the unlabelled node is never used.
    assertThat(
            nodes(GangFit.fit(fleet, members(3, 4), CLASSES, required, FitPolicy.BEST_FIT))
                .values())
        .containsOnly("c", "d", "e");
    // Two of 4: both racks hold them; r0 has fewer free devices (8 against 12): best fit.
    assertThat(
            nodes(GangFit.fit(fleet, members(2, 4), CLASSES, required, FitPolicy.BEST_FIT))
                .values())
        .containsOnly("a", "b");
  }

  @Test
  void aPreferredKeyPacksTheMembersIntoTheFewestValues() {
    var fleet = List.of(inRack("a", 4, "r0"), inRack("b", 4, "r1"), inRack("c", 4, "r1"));
    var preferred = new GangTopology(Optional.empty(), Optional.of(RACK));
    assertThat(
            nodes(GangFit.fit(fleet, members(2, 4), CLASSES, preferred, FitPolicy.BEST_FIT))
                .values())
        .as("r1 holds both")
        .containsOnly("b", "c");
    assertThat(
            nodes(GangFit.fit(fleet, members(3, 4), CLASSES, preferred, FitPolicy.BEST_FIT))
                .values())
        .as("spills into r0 only for the third")
        .containsOnly("a", "b", "c");
  }

  @Test
  void whenNotAllFitItSaysHowManyWouldAndWhere() {
    assertThat(
            GangFit.fit(
                List.of(node("a", 4), node("b", 4)),
                members(3, 4),
                CLASSES,
                GangTopology.ANYWHERE,
                FitPolicy.BEST_FIT))
        .isEqualTo(new GangFit.Outcome.Short(2, Optional.empty()));
    var fleet = List.of(inRack("a", 4, "r0"), inRack("b", 4, "r1"), inRack("c", 4, "r1"));
    assertThat(
            GangFit.fit(
                fleet,
                members(3, 4),
                CLASSES,
                new GangTopology(Optional.of(RACK), Optional.empty()),
                FitPolicy.BEST_FIT))
        .isEqualTo(new GangFit.Outcome.Short(2, Optional.of("r1")));
    assertThat(
            GangFit.fit(
                List.of(), members(1, 1), CLASSES, GangTopology.ANYWHERE, FitPolicy.BEST_FIT))
        .isEqualTo(new GangFit.Outcome.Short(0, Optional.empty()));
  }

  @Test
  void aThousandWholeNodeMembersFillAThousandNodes() {
    var fleet = new ArrayList<NodeView>();
    for (int i = 0; i < 1000; i++) {
      fleet.add(node("n" + i, 8));
    }
    var outcome =
        GangFit.fit(fleet, members(1000, 8), CLASSES, GangTopology.ANYWHERE, FitPolicy.BEST_FIT);
    assertThat(nodes(outcome).values()).doesNotHaveDuplicates().hasSize(1000);
  }
}
