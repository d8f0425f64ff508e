package dev.quartermaster.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigPlacement;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The scrape's MIG series, read from a node's published slices and its claims' allocations. */
class MigCensusTest {
  static final MigGeometry H200 = MigGeometry.H200_141GB;

  static String slice(String label, int start) {
    return MigGeometry.deviceName(
        "gpu-0", new MigPlacement(H200.profile(label).orElseThrow(), start));
  }

  @Test
  void heldAndFreeSlicesPerProfileFreeComputeAndFragmentationPerGpu() {
    var node =
        new Node(
            ObjectMeta.named("node-1"),
            NodeSpec.EMPTY.withMig("gpu-0", Optional.of(MigMode.Dynamic)),
            NodeStatus.EMPTY);
    var published =
        new DeviceSlice(
            ObjectMeta.named("node-1"),
            new DeviceSliceSpec("node-1", H200.devices("gpu-0"), List.of(H200.counterSet("gpu-0"))),
            null);
    var claims =
        List.of(
            ClusterCensusTest.claim("a", "node-1", Optional.empty(), slice("3g.71gb", 0)),
            ClusterCensusTest.claim("b", "node-1", Optional.empty(), slice("1g.18gb", 5)));

    var census = MigCensus.of(List.of(node), List.of(published), claims);

    var gpu = new MigGpuKey("node-1", "gpu-0");
    assertThat(census.freeCompute()).containsEntry(gpu, 3L);
    assertThat(census.fragmented()).containsEntry(gpu, 1L);
    assertThat(census.slices())
        .containsEntry(new MigSliceGroup("node-1", "gpu-0", "3g.71gb", true), 1L)
        .containsEntry(new MigSliceGroup("node-1", "gpu-0", "3g.71gb", false), 0L)
        .containsEntry(new MigSliceGroup("node-1", "gpu-0", "1g.18gb", false), 2L)
        .containsEntry(new MigSliceGroup("node-1", "gpu-0", "7g.141gb", false), 0L);
  }

  @Test
  void aNodeWithoutMigHasNoSeries() {
    var node = new Node(ObjectMeta.named("node-2"), NodeSpec.EMPTY, NodeStatus.EMPTY);
    var census = MigCensus.of(List.of(node), List.of(), List.of());
    assertThat(census.slices()).isEmpty();
    assertThat(census.freeCompute()).isEmpty();
  }
}
