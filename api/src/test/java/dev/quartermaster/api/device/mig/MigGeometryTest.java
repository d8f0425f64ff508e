package dev.quartermaster.api.device.mig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Holders;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The geometry's facts, and that its devices' counters make overlap over-consumption. */
class MigGeometryTest {
  private static final MigGeometry H200 = MigGeometry.H200_141GB;

  @Test
  void anEmptyGpuHoldsTheGuidesInstanceCounts() {
    // 7g, 4g, 3g, 2g, 1g.35gb, 1g.18gb: 1, 1, 2, 3, 4, 7 (MIG user guide, H200-141GB)
    for (var g : List.of(MigGeometry.H100_80GB, H200, MigGeometry.B200_180GB)) {
      assertThat(MigFragmentation.placeable(MigOccupancy.empty("gpu-0", g)))
          .containsExactly(1, 1, 2, 3, 4, 7);
    }
    assertThat(H200.largestFirst().stream().map(MigProfile::label))
        .containsExactly("7g.141gb", "4g.71gb", "3g.71gb", "2g.35gb", "1g.35gb", "1g.18gb");
    assertThat(MigGeometry.H100_80GB.profile("3g.40gb").orElseThrow().placementText())
        .isEqualTo("{0,4}:4");
    assertThat(H200.placements()).hasSize(7 + 4 + 3 + 2 + 1 + 1);
  }

  @Test
  void labelsDriftButShapesDoNot() {
    var h100 = MigGeometry.H100_80GB.profile("3g.40gb").orElseThrow();
    var h200 = H200.profile("3g.71gb").orElseThrow();
    assertThat(h100.sameShape(h200)).isTrue();
    assertThat(h100.shape()).isEqualTo("3g4m");
    var p = new MigPlacement(h200, 4);
    assertThat(MigGeometry.deviceName("gpu-0", p)).isEqualTo("gpu-0-mig-3g4m-4");
    assertThat(H200.device("gpu-0", p).attributes()).containsEntry("profile", "3g.71gb");
    assertThatThrownBy(() -> new MigPlacement(h200, 2)).hasMessageContaining("{0,4}:4");
  }

  private static DeviceUse use() {
    return DeviceUse.of(
        new DeviceSliceSpec("node-1", H200.devices("gpu-0"), List.of(H200.counterSet("gpu-0"))));
  }

  @Test
  void twoPlacementsExcludeEachOtherExactlyWhenTheyOverlap() {
    var use = use();
    for (var a : H200.placements()) {
      for (var b : H200.placements()) {
        if (a.equals(b)) {
          continue;
        }
        var held = Map.of(MigGeometry.deviceName("gpu-0", a), "claim-a");
        boolean free = use.isFree(MigGeometry.deviceName("gpu-0", b), Holders.of(held));
        boolean fits =
            !a.overlaps(b) && a.profile().computeSlices() + b.profile().computeSlices() <= 7;
        assertThat(free).as(a + " held, " + b).isEqualTo(fits);
      }
    }
  }

  @Test
  void deviceUseAndTheOccupancyAgreeOnEveryReachableGpu() {
    var use = use();
    var random = new Random(46);
    for (int round = 0; round < 300; round++) {
      var gpu = MigOccupancy.empty("gpu-0", H200);
      var held = new TreeMap<String, String>();
      var all = H200.placements();
      for (int step = 0; step < 10; step++) {
        var p = all.get(random.nextInt(all.size()));
        boolean free = use.isFree(MigGeometry.deviceName("gpu-0", p), Holders.of(held));
        assertThat(free).as(gpu.render() + " + " + p).isEqualTo(gpu.canCreate(p));
        if (free) {
          gpu = gpu.with(p, "c" + step);
          held.put(MigGeometry.deviceName("gpu-0", p), "c" + step);
        }
      }
    }
  }

  @Test
  void anOccupancyThatOverlapsIsRefused() {
    var one = H200.profile("1g.18gb").orElseThrow();
    var three = H200.profile("3g.71gb").orElseThrow();
    assertThatThrownBy(
            () ->
                MigOccupancy.empty("gpu-0", H200)
                    .with(new MigPlacement(three, 4), "a")
                    .with(new MigPlacement(one, 5), "b"))
        .hasMessageContaining("overlaps");
  }

  /**
   * A slice device says what a request selects by (its memory in bytes as its label states it), and
   * reads back as the instance it stands for, by capacity and start, whatever its label.
   */
  @Test
  void aSliceDeviceCarriesItsMemoryAndReadsBackAsItsPlacement() {
    var g = MigGeometry.H200_141GB;
    var three = new MigPlacement(g.profile("3g.71gb").orElseThrow(), 4);
    var d = g.device("gpu-2", three);
    assertThat(d.attributes())
        .containsEntry("memory", "71000000000")
        .containsEntry("computeSlices", "3")
        .containsEntry("parent", "gpu-2");
    assertThat(g.placement(d)).contains(three);
    assertThat(MigGeometry.of(d)).contains(g);
    var renamed = new java.util.HashMap<>(d.attributes());
    renamed.put("profile", "3g.72gb"); // a newer driver's label: the same instance
    var drifted =
        new dev.quartermaster.api.device.Device(
            d.name(), d.deviceClass(), renamed, d.health(), "", d.consumesCounters());
    assertThat(g.placement(drifted)).contains(three);
  }

  /** The holdings of a node's slices are read back as each GPU's instances. */
  @Test
  void aNodesHeldSlicesAreItsGpusInstances() {
    var g = MigGeometry.H200_141GB;
    var devices = new java.util.ArrayList<>(g.devices("gpu-10"));
    devices.addAll(g.devices("gpu-2"));
    var held = Map.of("gpu-2-mig-3g4m-4", "claim/a", "gpu-2-mig-1g1m-0", "claim/b");
    var gpus = MigHoldings.of(devices, name -> java.util.Optional.ofNullable(held.get(name)));
    assertThat(gpus).extracting(MigOccupancy::gpu).containsExactly("gpu-2", "gpu-10");
    assertThat(gpus.getFirst().render()).isEqualTo("[1g.18gb: claim/b][·][·][·][3g.71gb: claim/a]");
    assertThat(gpus.get(1).isEmpty()).isTrue();
  }
}
