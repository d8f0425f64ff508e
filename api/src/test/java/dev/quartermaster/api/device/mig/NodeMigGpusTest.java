package dev.quartermaster.api.device.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.NodeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A node's MIG GPUs read from what its slice publishes (the issue-46 contract) and who holds what:
 * the positions describe and the dashboard draw, MIG FREE, the metrics' counts, fragmentation.
 */
class NodeMigGpusTest {
  static final MigGeometry H200 = MigGeometry.H200_141GB;

  static MigPlacement at(String label, int start) {
    return new MigPlacement(H200.profile(label).orElseThrow(), start);
  }

  static String name(String gpu, String label, int start) {
    return MigGeometry.deviceName(gpu, at(label, start));
  }

  @Test
  void aDynamicGpuDrawsItsHeldSlicesAndSaysWhenFreedOnesLeaveItFragmented() {
    var spec = NodeSpec.EMPTY.withMig("gpu-0", Optional.of(MigMode.Dynamic));
    var slice =
        new DeviceSliceSpec("node-1", H200.devices("gpu-0"), List.of(H200.counterSet("gpu-0")));
    var holders =
        Map.of(
            name("gpu-0", "3g.71gb", 0), "claim/a",
            name("gpu-0", "1g.18gb", 5), "claim/b");

    var gpu = NodeMigGpus.of(spec, slice, holders).gpus().getFirst();

    assertThat(gpu.published()).contains(MigMode.Dynamic);
    assertThat(gpu.modeText()).isEqualTo("Dynamic");
    assertThat(gpu.occupancy().orElseThrow().render())
        .isEqualTo("[3g.71gb: claim/a][·][1g.18gb: claim/b][·][·]");
    assertThat(NodeMigGpus.of(spec, slice, holders).freeText()).isEqualTo("3/7");
    assertThat(gpu.fragmentation())
        .contains(
            "gpu-0 is fragmented: 3 compute and 3 memory slices free, yet no 2g.35gb fits"
                + " (positions 0, 1, 2, 3, 5 taken)");
    assertThat(gpu.slices())
        .containsEntry("3g.71gb", new MigGpu.SliceCount(1, 0))
        .containsEntry("1g.18gb", new MigGpu.SliceCount(1, 2))
        .containsEntry("1g.35gb", new MigGpu.SliceCount(0, 1))
        .containsEntry("7g.141gb", new MigGpu.SliceCount(0, 0));
    assertThat(gpu.problems()).isEmpty();
  }

  @Test
  void aStaticLayoutDrawsEveryInstanceHeldOrFreeAndIsNeverCalledFragmented() {
    var spec = NodeSpec.EMPTY.withMig("gpu-1", Optional.of(MigMode.Static));
    var devices =
        List.of(H200.device("gpu-1", at("3g.71gb", 0)), H200.device("gpu-1", at("3g.71gb", 4)));
    var slice = new DeviceSliceSpec("node-1", devices, List.of(H200.counterSet("gpu-1")));

    var mig = NodeMigGpus.of(spec, slice, Map.of(name("gpu-1", "3g.71gb", 4), "claim/c"));
    var gpu = mig.gpus().getFirst();

    assertThat(gpu.published()).contains(MigMode.Static);
    assertThat(gpu.occupancy().orElseThrow().render())
        .isEqualTo("[3g.71gb: free][3g.71gb: claim/c]");
    assertThat(mig.freeText()).isEqualTo("3/7");
    assertThat(gpu.fragmentation()).isEmpty();
    assertThat(gpu.slices()).containsEntry("3g.71gb", new MigGpu.SliceCount(1, 1));
  }

  @Test
  void aGpuWishedInMigButPublishedWholeSaysSoAndAWholeGpuIsNoneOfIt() {
    var spec = NodeSpec.EMPTY.withMig("gpu-0", Optional.of(MigMode.Dynamic));
    var devices = new ArrayList<Device>();
    for (var g : List.of("gpu-0", "gpu-1")) {
      devices.add(new Device(g, "gpu", Map.of(), Device.Health.Healthy, ""));
    }
    var mig = NodeMigGpus.of(spec, new DeviceSliceSpec("node-1", devices), Map.of());

    assertThat(mig.gpus()).extracting(MigGpu::gpu).containsExactly("gpu-0");
    assertThat(mig.gpus().getFirst().modeText())
        .isEqualTo(
            "Dynamic wished; whole now (its agent switches the GPU once nothing holds it or a"
                + " slice of it)");
    assertThat(mig.freeText()).isEqualTo("0/0");
    assertThat(NodeMigGpus.gpus(new DeviceSliceSpec("node-1", devices)))
        .containsExactly("gpu-0", "gpu-1");
    assertThat(
            NodeMigGpus.of(NodeSpec.EMPTY, new DeviceSliceSpec("n", devices), Map.of()).freeText())
        .isEqualTo("-");
  }

  @Test
  void overlappingHeldSlicesAreNamedNotDrawn() {
    var spec = NodeSpec.EMPTY.withMig("gpu-0", Optional.of(MigMode.Dynamic));
    var slice =
        new DeviceSliceSpec("node-1", H200.devices("gpu-0"), List.of(H200.counterSet("gpu-0")));
    var holders =
        Map.of(name("gpu-0", "7g.141gb", 0), "claim/a", name("gpu-0", "1g.18gb", 3), "claim/b");

    var gpu = NodeMigGpus.of(spec, slice, holders).gpus().getFirst();

    assertThat(gpu.occupancy().orElseThrow().instances()).hasSize(1);
    assertThat(gpu.problems()).singleElement().asString().contains("overlaps another (I1)");
  }
}
