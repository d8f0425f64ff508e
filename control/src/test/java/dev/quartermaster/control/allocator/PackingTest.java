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
import org.junit.jupiter.api.Test;

/**
 * Best fit against first fit ({@link FitPolicy}), the seam the bench measures fragmentation
 * through: a gang of two 4-GPU members on a fleet of one empty 8-GPU node and two half-used ones.
 * Best fit fills the half used ones and keeps the empty node whole for an 8-GPU member; first fit
 * takes the empty node.
 */
class PackingTest {
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu",
          new DeviceClass(
              ObjectMeta.named("gpu"),
              new DeviceClassSpec("gpu", List.of()),
              DeviceClassStatus.EMPTY));

  private static final List<NodeView> FLEET =
      List.of(node("node-a", 8, 0), node("node-b", 8, 4), node("node-c", 8, 4));

  @Test
  void bestFitKeepsAWholeNodeWholeAndFirstFitTakesIt() {
    var gang = List.of(member("m-0", 4), member("m-1", 4));

    assertThat(
            nodesOf(GangFit.fit(FLEET, gang, CLASSES, GangTopology.ANYWHERE, FitPolicy.BEST_FIT)))
        .containsExactly("node-b", "node-c");
    assertThat(
            nodesOf(GangFit.fit(FLEET, gang, CLASSES, GangTopology.ANYWHERE, FitPolicy.FIRST_FIT)))
        .containsExactly("node-a", "node-a");
  }

  @Test
  void bothSayHowManyWouldFitWhenNotAllDo() {
    var gang = List.of(member("m-0", 8), member("m-1", 8));
    for (var packing : Packing.values()) {
      assertThat(GangFit.fit(FLEET, gang, CLASSES, GangTopology.ANYWHERE, packing.policy()))
          .as("%s", packing)
          .isEqualTo(new GangFit.Outcome.Short(1, Optional.empty()));
    }
  }

  /** The node each member went to, in member order. */
  private static List<String> nodesOf(GangFit.Outcome outcome) {
    var byMember = ((GangFit.Outcome.Fits) outcome).byMember();
    return byMember.keySet().stream().sorted().map(m -> byMember.get(m).node()).toList();
  }

  private static GangFit.Member member(String task, int gpus) {
    return new GangFit.Member(
        task,
        List.of(
            new ClaimNeed(
                task + "-gpu", List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())))));
  }

  /** A ready node of {@code gpus} GPUs, the first {@code used} of them held. */
  private static NodeView node(String name, int gpus, int used) {
    var devices = new ArrayList<Device>();
    var held = new HashMap<String, String>();
    for (int i = 0; i < gpus; i++) {
      devices.add(new Device("gpu-" + i, "gpu", Map.of(), Device.Health.Healthy, ""));
      if (i < used) {
        held.put("gpu-" + i, "uid-" + name);
      }
    }
    return new NodeView(
        name,
        Optional.empty(),
        List.copyOf(devices),
        Map.copyOf(held),
        new NodeView.Sources(0, 0, List.of(), false));
  }
}
