package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.device.CounterConsumption;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The allocator's fit asks device use: on a node whose {@code gpu-0} shares counters with its
 * slices, a held slice makes the whole GPU not free, and a fit that takes the GPU takes none of its
 * slices for the next claim; with no counters declared they are separate devices, as today.
 */
class SharedCountersFitTest {
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu",
          new DeviceClass(
              ObjectMeta.named("gpu"),
              new DeviceClassSpec("gpu", List.of()),
              DeviceClassStatus.EMPTY));

  private static final List<Device> DEVICES =
      List.of(gpu("gpu-0", 7), gpu("gpu-0-mig-1g-0", 1), gpu("gpu-0-mig-1g-1", 1));

  private static Device gpu(String name, long compute) {
    return new Device(
        name,
        "gpu",
        Map.of(),
        Device.Health.Healthy,
        "",
        List.of(new CounterConsumption("gpu-0", Map.of("compute", compute))));
  }

  private static NodeView node(boolean counters, Map<String, String> held) {
    var use =
        counters
            ? DeviceUse.of(
                new DeviceSliceSpec(
                    "node-1", DEVICES, List.of(new CounterSet("gpu-0", Map.of("compute", 7L)))))
            : DeviceUse.WHOLE_DEVICES;
    return new NodeView(
        "node-1",
        Optional.empty(),
        DEVICES,
        held,
        new NodeView.Sources(0, 0, List.of(), false),
        Map.of(),
        use);
  }

  private static ClaimNeed one(String claim) {
    return new ClaimNeed(claim, List.of(new DeviceRequest("gpu", "gpu", 1, List.of())));
  }

  private static Optional<Map<String, List<AllocatedDevice>>> fit(
      NodeView view, List<ClaimNeed> needs) {
    return DeviceFit.fit(
        view.devices(), needs, CLASSES, (d, taking) -> view.isFree(d, Set.of(), taking));
  }

  @Test
  void aHeldSliceMakesTheWholeGpuNotFree() {
    var view = node(true, Map.of("gpu-0-mig-1g-0", "uid-x"));
    assertThat(view.isFree(DEVICES.get(0))).isFalse();
    assertThat(fit(view, List.of(one("a"))).orElseThrow().get("a"))
        .containsExactly(new AllocatedDevice("gpu", "gpu-0-mig-1g-1"));
    assertThat(view.free("gpu")).isEqualTo(1);

    var today = node(false, Map.of("gpu-0-mig-1g-0", "uid-x"));
    assertThat(fit(today, List.of(one("a"))).orElseThrow().get("a"))
        .containsExactly(new AllocatedDevice("gpu", "gpu-0"));
  }

  @Test
  void aFitTakingTheGpuLeavesNoneOfItsSlicesForTheNextClaim() {
    assertThat(fit(node(true, Map.of()), List.of(one("a"), one("b")))).isEmpty();
    assertThat(fit(node(false, Map.of()), List.of(one("a"), one("b"))).orElseThrow())
        .containsOnlyKeys("a", "b");
  }
}
