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
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FleetCapacity}, as a table: a fleet (what is in use, broken or not ready does not count)
 * and a gang in, whether it can ever fit and why not out.
 */
class FleetCapacityTest {
  private static final String CLIQUE = "topology.quartermaster.dev/nvlink-clique";
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu",
          new DeviceClass(
              ObjectMeta.named("gpu"),
              new DeviceClassSpec("gpu", List.of()),
              DeviceClassStatus.EMPTY));

  /** A node of {@code gpus} GPUs, {@code held} of them taken, maybe not ready, maybe labelled. */
  private static NodeView node(
      String name, int gpus, int held, boolean ready, Map<String, String> labels) {
    var devices = new ArrayList<Device>();
    var taken = new HashMap<String, String>();
    for (int i = 0; i < gpus; i++) {
      // Half the GPUs of a node that is not ready are broken too: neither counts against it.
      var health = !ready && i % 2 == 0 ? Device.Health.Unhealthy : Device.Health.Healthy;
      devices.add(new Device("gpu-" + i, "gpu", Map.of(), health, ""));
      if (i < held) {
        taken.put("gpu-" + i, "someone");
      }
    }
    return new NodeView(
        name,
        ready ? Optional.empty() : Optional.of("node " + name + " is not AgentReady"),
        devices,
        taken,
        NodeView.Sources.of(Optional.empty(), Optional.empty(), List.of()),
        labels);
  }

  private static NodeView inClique(String name, String clique) {
    return node(name, 4, 0, true, Map.of(CLIQUE, clique));
  }

  private static List<GangFit.Member> members(int n, int gpus) {
    var out = new ArrayList<GangFit.Member>();
    for (int i = 0; i < n; i++) {
      out.add(
          new GangFit.Member(
              "m" + i,
              List.of(
                  new ClaimNeed(
                      "m" + i + "-gpu",
                      List.of(new DeviceRequest("gpu", "gpu", gpus, List.of()))))));
    }
    return out;
  }

  private static final GangTopology ONE_CLIQUE =
      new GangTopology(Optional.of(CLIQUE), Optional.empty());

  static Stream<Arguments> cases() {
    var twoCliquesOfTwo =
        List.of(
            inClique("n1", "clique-1"),
            inClique("n2", "clique-1"),
            inClique("n3", "clique-2"),
            inClique("n4", "clique-2"));
    return Stream.of(
        Arguments.of(
            "3 x 4 GPUs in one clique of 8 GPUs: at most 2, whatever is freed",
            twoCliquesOfTwo,
            members(3, 4),
            ONE_CLIQUE,
            Optional.of(
                "no "
                    + CLIQUE
                    + " holds them all: the largest, clique-1 (2 nodes, 8 gpu), holds at most 2 of"
                    + " its 3 members even with every device free")),
        Arguments.of(
            "2 x 4 GPUs in one clique: fits",
            twoCliquesOfTwo,
            members(2, 4),
            ONE_CLIQUE,
            Optional.empty()),
        Arguments.of(
            "a topology label no node carries",
            twoCliquesOfTwo,
            members(1, 1),
            new GangTopology(Optional.of("example.com/no-such"), Optional.empty()),
            Optional.of("no node carries the label example.com/no-such")),
        Arguments.of(
            "every GPU taken now, but an empty fleet holds it: it waits, it is not told never",
            List.of(node("n1", 4, 4, true, Map.of()), node("n2", 4, 4, true, Map.of())),
            members(2, 4),
            GangTopology.ANYWHERE,
            Optional.empty()),
        Arguments.of(
            "a node not ready, half its GPUs broken, still counts: it may come back",
            List.of(node("n1", 4, 0, true, Map.of()), node("n2", 4, 0, false, Map.of())),
            members(2, 4),
            GangTopology.ANYWHERE,
            Optional.empty()),
        Arguments.of(
            "more members than the whole fleet holds",
            List.of(node("n1", 4, 0, true, Map.of()), node("n2", 4, 0, true, Map.of())),
            members(3, 4),
            GangTopology.ANYWHERE,
            Optional.of(
                "the whole fleet (2 nodes, 8 gpu) holds at most 2 of its 3 members even with every"
                    + " device free")),
        Arguments.of(
            "a member larger than any node",
            List.of(node("n1", 4, 0, true, Map.of()), node("n2", 4, 0, true, Map.of())),
            members(1, 8),
            GangTopology.ANYWHERE,
            Optional.of(
                "the whole fleet (2 nodes, 8 gpu) holds at most 0 of its 1 members even with every"
                    + " device free")),
        Arguments.of(
            "no clique holds one member: the clique with the most GPUs is named",
            List.of(inClique("n1", "clique-a"), node("n2", 8, 8, true, Map.of(CLIQUE, "clique-b"))),
            members(1, 16),
            ONE_CLIQUE,
            Optional.of(
                "no "
                    + CLIQUE
                    + " holds them all: the largest, clique-b (1 node, 8 gpu), holds at most 0 of"
                    + " its 1 members even with every device free")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void neverFits(
      String name,
      List<NodeView> fleet,
      List<GangFit.Member> members,
      GangTopology topology,
      Optional<String> expected) {
    assertThat(FleetCapacity.neverFits(fleet, members, CLASSES, topology)).isEqualTo(expected);
  }
}
