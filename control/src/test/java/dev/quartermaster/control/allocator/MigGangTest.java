package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSelector;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A gang of slices is placed as a gang of GPUs is: whole or not at all, each member's slices free
 * by its GPUs' counters after the members placed before it, so two members never share a position.
 */
class MigGangTest {
  private static final MigGeometry H200 = MigGeometry.H200_141GB;
  private static final Map<String, DeviceClass> CLASSES =
      Map.of("mig-3g.71gb", profile("3g.71gb"), "mig-7g.141gb", profile("7g.141gb"));

  private static DeviceClass profile(String label) {
    return new DeviceClass(
        ObjectMeta.named("mig-" + label),
        new DeviceClassSpec(
            MigGeometry.DEVICE_CLASS,
            List.of(
                new DeviceSelector(
                    MigGeometry.PROFILE, DeviceSelector.Operator.In, List.of(label)))),
        DeviceClassStatus.EMPTY);
  }

  /** A ready node with one H200 in MIG mode, nothing held. */
  private static NodeView node(String name) {
    var devices = H200.devices("gpu-0");
    return new NodeView(
        name,
        Optional.empty(),
        devices,
        Map.of(),
        NodeView.Sources.of(Optional.empty(), Optional.empty(), List.of()),
        Map.of(),
        DeviceUse.of(
            new DeviceSliceSpec(name, devices, List.<CounterSet>of(H200.counterSet("gpu-0")))));
  }

  private static List<GangFit.Member> members(int n, String deviceClass) {
    return GangFitTest.members(n, deviceClass, 1);
  }

  private static GangFit.Outcome fit(List<GangFit.Member> members) {
    return GangFit.fit(
        List.of(node("a"), node("b")), members, CLASSES, GangTopology.ANYWHERE, FitPolicy.BEST_FIT);
  }

  @Test
  void fourHalvesOfTwoGpusAreOneGangEachOnItsOwnPositions() {
    var outcome = fit(members(4, "mig-3g.71gb"));
    assertThat(outcome).isInstanceOf(GangFit.Outcome.Fits.class);
    var taken = new TreeMap<String, String>();
    ((GangFit.Outcome.Fits) outcome)
        .byMember()
        .forEach(
            (m, p) ->
                p.devices().values().stream()
                    .flatMap(List::stream)
                    .map(AllocatedDevice::device)
                    .forEach(d -> assertThat(taken.put(p.node() + "/" + d, m)).isNull()));
    assertThat(taken.keySet())
        .containsExactly(
            "a/gpu-0-mig-3g4m-0", "a/gpu-0-mig-3g4m-4", "b/gpu-0-mig-3g4m-0", "b/gpu-0-mig-3g4m-4");
  }

  @Test
  void aGangTheGpusCannotHoldAtOnceIsNotPlacedInPart() {
    var outcome = fit(members(5, "mig-3g.71gb"));
    assertThat(outcome).isInstanceOf(GangFit.Outcome.Short.class);
    assertThat(((GangFit.Outcome.Short) outcome).most()).isEqualTo(4);
    // A whole-GPU slice each: two, not three.
    assertThat(fit(members(3, "mig-7g.141gb"))).isInstanceOf(GangFit.Outcome.Short.class);
    assertThat(fit(members(2, "mig-7g.141gb"))).isInstanceOf(GangFit.Outcome.Fits.class);
  }
}
