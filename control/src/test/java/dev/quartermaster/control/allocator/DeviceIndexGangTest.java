package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.DeviceSliceStatus;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The index places a gang with no topology rule from the few nodes best fit can reach, in its own
 * order, not from the whole fleet sorted per decision: it must choose exactly what best fit over
 * every node chooses, on fleets used in every way, and say the same when the gang does not fit.
 */
class DeviceIndexGangTest {
  private static final int GPUS = 8;
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu",
          new DeviceClass(
              ObjectMeta.named("gpu"),
              new DeviceClassSpec("gpu", List.of()),
              DeviceClassStatus.EMPTY));

  @Test
  void theShortcutChoosesWhatBestFitOverEveryNodeChooses() {
    int fitted = 0;
    for (long seed = 0; seed < 300; seed++) {
      var random = new Random(seed);
      var index = new DeviceIndex(new InFlightCommits());
      var views = new ArrayList<NodeView>();
      int nodes = 1 + random.nextInt(40);
      for (int i = 0; i < nodes; i++) {
        var held = new HashMap<String, DeviceHolder>();
        for (int g = 0; g < GPUS; g++) {
          if (random.nextInt(3) == 0) {
            held.put("gpu-" + g, new DeviceHolder("c", "uid-" + i + "-" + g));
          }
        }
        var name = "node-" + i;
        index.refresh(
            name,
            Optional.of(readyNode(name)),
            Optional.of(
                new NodeAllocation(ObjectMeta.named(name), new NodeAllocationSpec(held), null)),
            List.of(slice(name)));
        var heldBy = new HashMap<String, String>();
        held.forEach((d, h) -> heldBy.put(d, h.uid()));
        views.add(
            new NodeView(
                name,
                Optional.empty(),
                slice(name).spec().devices(),
                Map.copyOf(heldBy),
                new NodeView.Sources(0, 0, List.of(), false)));
      }
      int each = List.of(1, 2, 4, 8).get(random.nextInt(4));
      var members = new ArrayList<GangFit.Member>();
      for (int m = 1 + random.nextInt(3 * nodes); m > 0; m--) {
        members.add(member("m-" + m, each));
      }

      var expected =
          GangFit.fit(views, members, CLASSES, GangTopology.ANYWHERE, FitPolicy.BEST_FIT);
      var actual = index.placeGang(members, CLASSES, GangTopology.ANYWHERE, Map.of());

      switch (expected) {
        case GangFit.Outcome.Fits f -> {
          fitted++;
          assertThat(actual).as("seed %d", seed).isEqualTo(new GangPlacement.Placed(f.byMember()));
        }
        case GangFit.Outcome.Short s ->
            assertThat(actual)
                .as("seed %d", seed)
                .isEqualTo(
                    FleetCapacity.neverFits(views, members, CLASSES, GangTopology.ANYWHERE)
                        .<GangPlacement>map(GangPlacement.NeverFits::new)
                        .orElse(new GangPlacement.Short(s.most(), s.where())));
      }
    }
    assertThat(fitted).as("gangs that fit, of 300").isBetween(50, 250);
  }

  private static GangFit.Member member(String task, int gpus) {
    return new GangFit.Member(
        task,
        List.of(
            new ClaimNeed(
                task + "-gpu", List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())))));
  }

  private static DeviceSlice slice(String node) {
    var devices = new ArrayList<Device>();
    for (int g = 0; g < GPUS; g++) {
      devices.add(new Device("gpu-" + g, "gpu", Map.of(), Device.Health.Healthy, ""));
    }
    return new DeviceSlice(
        ObjectMeta.named(node), new DeviceSliceSpec(node, devices), DeviceSliceStatus.EMPTY);
  }

  /** A node whose agent and devices are ready. */
  static Node readyNode(String name) {
    return new Node(
        ObjectMeta.named(name),
        NodeSpec.EMPTY,
        new NodeStatus(
            List.of(
                new Condition(
                    "AgentReady", Condition.Status.True, "Heartbeat", "", Optional.empty()),
                new Condition(
                    "DevicesReady", Condition.Status.True, "AllPresent", "", Optional.empty())),
            Optional.empty(),
            "b",
            "",
            List.of()));
  }
}
