package dev.quartermaster.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The scrape's time-sliced series, read from a node's published replicas and its claims. */
class SharedCensusTest {
  @Test
  void heldAndFreeReplicasPerGpuAndNothingForANodeWithoutSharing() {
    var gpu0 = new Device("gpu-0", "gpu", Map.of("uuid", "GPU-0"), Device.Health.Healthy, "");
    var devices = new ArrayList<>(TimeSlices.replicas(gpu0, 4));
    devices.add(new Device("gpu-1", "gpu", Map.of(), Device.Health.Healthy, ""));
    var shared =
        new Node(
            ObjectMeta.named("node-1"),
            NodeSpec.EMPTY.withSharing("gpu-0", Optional.of(GpuSharing.timeSliced(4))),
            NodeStatus.EMPTY);
    var plain = new Node(ObjectMeta.named("node-2"), NodeSpec.EMPTY, NodeStatus.EMPTY);
    var slice =
        new DeviceSlice(ObjectMeta.named("node-1"), new DeviceSliceSpec("node-1", devices), null);
    var claims =
        List.of(
            ClusterCensusTest.claim("a", "node-1", Optional.empty(), "gpu-0-ts-0"),
            ClusterCensusTest.claim("b", "node-1", Optional.empty(), "gpu-0-ts-3"),
            ClusterCensusTest.claim("c", "node-1", Optional.empty(), "gpu-1"));

    var census = SharedCensus.of(List.of(shared, plain), List.of(slice), claims);

    assertThat(census)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                new ReplicaGroup("node-1", "gpu-0", "held"), 2L,
                new ReplicaGroup("node-1", "gpu-0", "free"), 2L));
  }
}
