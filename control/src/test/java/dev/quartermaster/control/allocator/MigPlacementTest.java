package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSelector;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.DeviceSliceStatus;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The allocator places MIG slices as {@link dev.quartermaster.api.device.mig.LeastFragmenting}
 * does: among the slice devices that match and are free by device use, the smallest profile that
 * serves, on a partly used GPU before a whole one, where it blocks the fewest larger profiles. A
 * whole-GPU claim never lands on a GPU in MIG mode, a {@code 7g} waits while any slice of its GPU
 * is held, and a pending slice claim says what stands on each GPU.
 */
class MigPlacementTest {
  private static final String NODE = "node-0";
  private static final MigGeometry H200 = MigGeometry.H200_141GB;

  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu", cls("gpu", "gpu", List.of()),
          "mig-1g.18gb", profile("1g.18gb"),
          "mig-3g.71gb", profile("3g.71gb"),
          "mig-4g.71gb", profile("4g.71gb"),
          "mig-7g.141gb", profile("7g.141gb"),
          "mig-2g-or-more",
              cls(
                  "mig-2g-or-more",
                  MigGeometry.DEVICE_CLASS,
                  List.of(
                      new DeviceSelector(
                          MigGeometry.COMPUTE_SLICES, DeviceSelector.Operator.Gte, List.of("2")))),
          "mig-35gb-or-more",
              cls(
                  "mig-35gb-or-more",
                  MigGeometry.DEVICE_CLASS,
                  List.of(
                      new DeviceSelector(
                          MigGeometry.MEMORY,
                          DeviceSelector.Operator.Gte,
                          List.of("35000000000")))));

  private final DeviceIndex index = new DeviceIndex(new InFlightCommits());
  private final Map<String, DeviceHolder> held = new HashMap<>();

  private static DeviceClass cls(String name, String base, List<DeviceSelector> selectors) {
    return new DeviceClass(
        ObjectMeta.named(name), new DeviceClassSpec(base, selectors), DeviceClassStatus.EMPTY);
  }

  private static DeviceClass profile(String label) {
    return cls(
        "mig-" + label,
        MigGeometry.DEVICE_CLASS,
        List.of(
            new DeviceSelector(MigGeometry.PROFILE, DeviceSelector.Operator.In, List.of(label))));
  }

  /** {@code migGpus} H200s in MIG mode (gpu-0, …) and {@code wholeGpus} whole ones after them. */
  private void node(int migGpus, int wholeGpus) {
    var devices = new ArrayList<Device>();
    var counters = new ArrayList<CounterSet>();
    for (int i = 0; i < migGpus; i++) {
      devices.addAll(H200.devices("gpu-" + i));
      counters.add(H200.counterSet("gpu-" + i));
    }
    for (int i = migGpus; i < migGpus + wholeGpus; i++) {
      devices.add(
          new Device("gpu-" + i, "gpu", Map.of("model", "H200"), Device.Health.Healthy, ""));
    }
    var slice =
        new DeviceSlice(
            ObjectMeta.named(NODE),
            new DeviceSliceSpec(NODE, devices, counters),
            DeviceSliceStatus.EMPTY);
    var node = DeviceIndexGangTest.readyNode(NODE);
    var record =
        new NodeAllocation(
            ObjectMeta.named(NODE), NodeAllocationSpec.EMPTY.with(Map.copyOf(held)), null);
    index.refresh(
        NODE,
        Optional.of(node),
        held.isEmpty() ? Optional.empty() : Optional.of(record),
        List.of(slice));
  }

  private Placement place(String claim, String deviceClass, int count) {
    var placement =
        index.place(
            List.of(
                new ClaimNeed(
                    claim, List.of(new DeviceRequest("r", deviceClass, count, List.of())))),
            Optional.empty(),
            CLASSES);
    index.commitEnded(NODE);
    return placement;
  }

  /** Places {@code claim} and records what it got as held; returns its devices. */
  private List<String> take(String claim, String deviceClass, int count, int migGpus, int whole) {
    var placed = (Placement.Placed) place(claim, deviceClass, count);
    var devices = placed.devices().get(claim).stream().map(AllocatedDevice::device).toList();
    devices.forEach(d -> held.put(d, new DeviceHolder(claim, "uid-" + claim)));
    node(migGpus, whole);
    return devices;
  }

  @Test
  void aSliceGoesWhereItBlocksTheFewestLargerProfilesAndFillsAPartlyUsedGpuFirst() {
    node(2, 0);
    // At position 0 a 1g would block the 4g and a 3g; at 6 only one 3g.
    assertThat(take("a", "mig-1g.18gb", 1, 2, 0)).containsExactly("gpu-0-mig-1g1m-6");
    // The next goes beside it on gpu-0, not onto the empty gpu-1.
    assertThat(take("b", "mig-1g.18gb", 1, 2, 0)).containsExactly("gpu-0-mig-1g1m-4");
    // A 3g takes gpu-0's free half at 0, leaving gpu-1 whole for a 7g.
    assertThat(take("c", "mig-3g.71gb", 1, 2, 0)).containsExactly("gpu-0-mig-3g4m-0");
    assertThat(take("d", "mig-7g.141gb", 1, 2, 0)).containsExactly("gpu-1-mig-7g8m-0");
  }

  @Test
  void aRequestByAttributesGetsTheSmallestProfileThatServes() {
    node(1, 0);
    assertThat(take("a", "mig-2g-or-more", 1, 1, 0)).containsExactly("gpu-0-mig-2g2m-4");
    assertThat(take("b", "mig-35gb-or-more", 1, 1, 0)).containsExactly("gpu-0-mig-1g2m-6");
  }

  @Test
  void aWholeGpuClaimNeverLandsOnAGpuInMigMode() {
    node(1, 1);
    assertThat(take("a", "gpu", 1, 1, 1)).containsExactly("gpu-1");
    assertThat(place("b", "gpu", 1)).isInstanceOf(Placement.Waiting.class);
    held.clear();
    node(1, 0);
    assertThat(place("c", "gpu", 1)).isInstanceOf(Placement.Unsatisfiable.class);
  }

  @Test
  void aWholeGpuSliceWaitsWhileAnySliceOfItIsHeldAndSaysWhatStandsThere() {
    node(1, 0);
    take("a", "mig-1g.18gb", 1, 1, 0);
    var waiting = place("b", "mig-7g.141gb", 1);
    assertThat(waiting).isInstanceOf(Placement.Waiting.class);
    assertThat(((Placement.Waiting) waiting).message())
        .contains("gpu-0 [·][·][·][·][·][·][1g.18gb: held][·]");
    held.clear();
    node(1, 0);
    assertThat(take("b", "mig-7g.141gb", 1, 1, 0)).containsExactly("gpu-0-mig-7g8m-0");
  }

  @Test
  void moreSlicesThanItsGpusCanHoldAtOnceIsUnsatisfiableAndSaysSo() {
    node(1, 0);
    var never = place("a", "mig-3g.71gb", 3);
    assertThat(never).isInstanceOf(Placement.Unsatisfiable.class);
    assertThat(((Placement.Unsatisfiable) never).message())
        .contains("only 2 matching device(s)")
        .contains("at most 2 can be held at once");
    // Two 4g-or-larger: two devices match (4g, 7g), yet only one can be held at once.
    assertThat(((Placement.Unsatisfiable) place("b", "mig-4g.71gb", 2)).message())
        .contains("at most 1 can be held at once");
    assertThat(take("c", "mig-3g.71gb", 2, 1, 0))
        .containsExactlyInAnyOrder("gpu-0-mig-3g4m-0", "gpu-0-mig-3g4m-4");
  }
}
