package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ShareRequest;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The allocator's fit of MPS shares: a request's share is made of an MPS GPU's one device, named
 * for its size and the lowest free number; shares fit while the GPU's compute, memory and clients
 * last, then the next waits; one claim gets at most one share of a GPU; and the node counts as many
 * free devices as the smallest share would still fit.
 */
class MpsShareFitTest {
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "mps",
          new DeviceClass(
              ObjectMeta.named("mps"),
              new DeviceClassSpec("mps", List.of()),
              DeviceClassStatus.EMPTY));

  private static final Device GPU_0 =
      new Device(
          "gpu-0",
          "gpu",
          Map.of("memory", Long.toString(80 * MpsShares.GIB)),
          Device.Health.Healthy,
          "");

  private static final List<Device> DEVICES = List.of(MpsShares.template(GPU_0, 3));

  private static NodeView node(Map<String, String> held) {
    return new NodeView(
        "node-1",
        Optional.empty(),
        DEVICES,
        held,
        new NodeView.Sources(0, 0, List.of(), false),
        Map.of(),
        DeviceUse.of(new DeviceSliceSpec("node-1", DEVICES)));
  }

  private static ClaimNeed share(String claim, int compute, String memory, int count) {
    return new ClaimNeed(
        claim,
        List.of(
            new DeviceRequest(
                "s", "mps", count, List.of(), Optional.of(new ShareRequest(compute, memory)))));
  }

  private static Optional<String> fit(Map<String, String> held, ClaimNeed need) {
    var view = node(held);
    return DeviceFit.fit(view.devices(), List.of(need), CLASSES, view.freeTest(java.util.Set.of()))
        .map(m -> m.get(need.claim()).stream().map(AllocatedDevice::device).toList().toString());
  }

  @Test
  void sharesFitUntilTheGpuIsTakenThenTheNextWaits() {
    var held = new HashMap<String, String>();
    assertThat(node(held).free("mps")).isEqualTo(3); // three clients
    assertThat(fit(held, share("a", 50, "20Gi", 1))).contains("[gpu-0-mps-50pct-20gib-0]");
    held.put("gpu-0-mps-50pct-20gib-0", "a");
    assertThat(fit(held, share("b", 50, "20Gi", 1))).contains("[gpu-0-mps-50pct-20gib-1]");
    assertThat(fit(held, share("b", 55, "1Gi", 1))).isEmpty(); // 105 %
    assertThat(fit(held, share("b", 5, "61Gi", 1))).isEmpty(); // 81 GiB of 80
    held.put("gpu-0-mps-50pct-20gib-1", "b");
    assertThat(node(held).free("mps")).isEqualTo(0); // no compute left
    assertThat(fit(held, share("c", 5, "1Gi", 1))).isEmpty();
  }

  @Test
  void oneClaimGetsOneShareOfAGpuAndARequestWithoutAShareGetsNone() {
    assertThat(fit(Map.of(), share("a", 10, "1Gi", 2))).isEmpty();
    assertThat(
            fit(Map.of(), new ClaimNeed("a", List.of(new DeviceRequest("s", "mps", 1, List.of())))))
        .isEmpty();
  }

  @Test
  void theClaimsOfOneFitEachGetAShareOfOneGpuWhileItLasts() {
    var view = node(Map.of());
    var three =
        List.of(share("a", 30, "10Gi", 1), share("b", 30, "10Gi", 1), share("c", 30, "10Gi", 1));
    var fit = DeviceFit.fit(view.devices(), three, CLASSES, view.freeTest(java.util.Set.of()));
    assertThat(
            fit.orElseThrow().values().stream().flatMap(List::stream).map(AllocatedDevice::device))
        .containsExactlyInAnyOrder(
            "gpu-0-mps-30pct-10gib-0", "gpu-0-mps-30pct-10gib-1", "gpu-0-mps-30pct-10gib-2");
    var four =
        List.of(
            share("a", 20, "10Gi", 1),
            share("b", 20, "10Gi", 1),
            share("c", 20, "10Gi", 1),
            share("d", 20, "10Gi", 1));
    assertThat(DeviceFit.fit(view.devices(), four, CLASSES, view.freeTest(java.util.Set.of())))
        .isEmpty(); // four clients of three
  }

  @Test
  void theGpuHeldWholeLeavesNoShare() {
    assertThat(fit(Map.of("gpu-0", "x"), share("a", 10, "1Gi", 1))).isEmpty();
    assertThat(node(Map.of("gpu-0", "x")).free("mps")).isEqualTo(0);
  }

  @Test
  void theIndexPlacesAShareOnAnMpsNode() {
    var index = new DeviceIndex(new InFlightCommits());
    var node =
        new dev.quartermaster.api.node.Node(
            ObjectMeta.named("node-1"),
            dev.quartermaster.api.node.NodeSpec.EMPTY,
            new dev.quartermaster.api.node.NodeStatus(
                List.of(
                    new dev.quartermaster.api.meta.Condition(
                        "AgentReady",
                        dev.quartermaster.api.meta.Condition.Status.True,
                        "Heartbeat",
                        "",
                        Optional.empty()),
                    new dev.quartermaster.api.meta.Condition(
                        "DevicesReady",
                        dev.quartermaster.api.meta.Condition.Status.True,
                        "AllPresent",
                        "",
                        Optional.empty())),
                Optional.empty(),
                "b",
                "",
                List.of()));
    var slice =
        new dev.quartermaster.api.device.DeviceSlice(
            ObjectMeta.named("node-1"),
            new DeviceSliceSpec("node-1", DEVICES),
            dev.quartermaster.api.device.DeviceSliceStatus.EMPTY);
    index.refresh("node-1", Optional.of(node), Optional.empty(), List.of(slice));
    var placed = index.place(List.of(share("a", 50, "20Gi", 1)), Optional.empty(), CLASSES);
    assertThat(placed).isInstanceOf(Placement.Placed.class);
  }
}
