package dev.quartermaster.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The scrape's MPS series, read from a node's published MPS device and its claims' shares. */
class MpsCensusTest {
  @Test
  void heldAndFreePerResourceAndEachSharesLimits() {
    var gpu0 =
        new Device(
            "gpu-0",
            "gpu",
            Map.of("uuid", "GPU-0", "memory", Long.toString(80 * MpsShares.GIB)),
            Device.Health.Healthy,
            "");
    var shared =
        new Node(
            ObjectMeta.named("node-1"),
            NodeSpec.EMPTY.withSharing("gpu-0", Optional.of(GpuSharing.mps(4))),
            NodeStatus.EMPTY);
    var plain = new Node(ObjectMeta.named("node-2"), NodeSpec.EMPTY, NodeStatus.EMPTY);
    var slice =
        new DeviceSlice(
            ObjectMeta.named("node-1"),
            new DeviceSliceSpec("node-1", List.of(MpsShares.template(gpu0, 4))),
            null);
    var claims =
        List.of(
            ClusterCensusTest.claim("a", "node-1", Optional.empty(), "gpu-0-mps-60pct-20gib-0"),
            ClusterCensusTest.claim("b", "node-1", Optional.empty(), "gpu-0-mps-20pct-10gib-0"));

    var census = MpsCensus.of(List.of(shared, plain), List.of(slice), claims);

    assertThat(census.capacity())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                new MpsGroup("node-1", "gpu-0", "compute_percent", "held"), 80L,
                new MpsGroup("node-1", "gpu-0", "compute_percent", "free"), 20L,
                new MpsGroup("node-1", "gpu-0", "memory_gib", "held"), 30L,
                new MpsGroup("node-1", "gpu-0", "memory_gib", "free"), 50L,
                new MpsGroup("node-1", "gpu-0", "clients", "held"), 2L,
                new MpsGroup("node-1", "gpu-0", "clients", "free"), 2L));
    assertThat(census.shares())
        .containsEntry(
            new MpsShareKey("node-1", "gpu-0", "gpu-0-mps-60pct-20gib-0", "a", "compute_percent"),
            60L)
        .containsEntry(
            new MpsShareKey("node-1", "gpu-0", "gpu-0-mps-20pct-10gib-0", "b", "memory_gib"), 10L)
        .hasSize(4);
  }
}
