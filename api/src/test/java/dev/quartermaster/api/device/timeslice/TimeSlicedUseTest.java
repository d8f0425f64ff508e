package dev.quartermaster.api.device.timeslice;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Holders;
import dev.quartermaster.api.device.use.Holding;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.validation.ObjectValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A time-sliced GPU's replicas as devices: their names and attributes, the spec's rules, and I1 —
 * each replica held by one claim, and no replica beside its whole GPU held by another, whether the
 * slice shows the replicas (their {@code parent}) or only their names say so.
 */
class TimeSlicedUseTest {
  private static final Device GPU_0 =
      new Device("gpu-0", "gpu", Map.of("uuid", "GPU-0", "minor", "0"), Device.Health.Healthy, "");
  private static final Device GPU_1 =
      new Device("gpu-1", "gpu", Map.of("uuid", "GPU-1"), Device.Health.Healthy, "");

  private static DeviceUse timeSliced() {
    var devices = new ArrayList<>(TimeSlices.replicas(GPU_0, 4));
    devices.add(GPU_1);
    return DeviceUse.of(new DeviceSliceSpec("node-1", devices));
  }

  @Test
  void replicasCarryTheirGpuAndSayHowItIsShared() {
    var replicas = TimeSlices.replicas(GPU_0, 4);
    assertThat(replicas)
        .extracting(Device::name)
        .containsExactly("gpu-0-ts-0", "gpu-0-ts-1", "gpu-0-ts-2", "gpu-0-ts-3");
    var r = replicas.get(2);
    assertThat(r.deviceClass()).isEqualTo(TimeSlices.DEVICE_CLASS);
    assertThat(r.attributes())
        .containsEntry("uuid", "GPU-0")
        .containsEntry("parent", "gpu-0")
        .containsEntry("replica", "2")
        .containsEntry("replicas", "4")
        .containsEntry("sharing", "time-sliced");
    assertThat(r.health()).isEqualTo(Device.Health.Healthy);
    assertThat(TimeSlices.parse("gpu-0-ts-2")).contains(new TimeSlices.Replica("gpu-0", 2));
    assertThat(TimeSlices.parse("gpu-0")).isEmpty();
    assertThat(TimeSlices.parse("gpu-0-ts-x")).isEmpty();
  }

  @ParameterizedTest(name = "held [{0}] by other claims, {1}: free {2}")
  @CsvSource({
    "'', gpu-0-ts-0, true",
    "gpu-0-ts-0, gpu-0-ts-0, false",
    "gpu-0-ts-0, gpu-0-ts-1, true",
    "gpu-0-ts-0 gpu-0-ts-1 gpu-0-ts-2, gpu-0-ts-3, true",
    // the whole GPU, held from before the mode change: no replica beside it
    "gpu-0, gpu-0-ts-1, false",
    "gpu-1, gpu-0-ts-1, true",
  })
  void aReplicaIsFreeWhenNeitherItNorItsWholeGpuIsHeld(String held, String asked, boolean free) {
    var use = timeSliced();
    var holders = new java.util.TreeMap<String, String>();
    for (var d : held.split(" ")) {
      if (!d.isEmpty()) {
        holders.put(d, "claim-" + d);
      }
    }
    assertThat(use.isFree(asked, Holders.of(holders))).isEqualTo(free);
    assertThat(use.clash(asked, "new", Holders.of(holders)).isEmpty()).isEqualTo(free);
    var all = new ArrayList<Holding<String>>();
    holders.forEach((d, h) -> all.add(new Holding<>(d, h)));
    all.add(new Holding<>(asked, "new"));
    assertThat(use.overConsumed(all).isEmpty()).as("judge").isEqualTo(free);
  }

  @Test
  void withTheGpuOfferedWholeAgainTheNamesStillTieAHeldReplicaToIt() {
    var whole = DeviceUse.of(new DeviceSliceSpec("node-1", List.of(GPU_0, GPU_1)));
    assertThat(whole.partWithWhole(Map.of("gpu-0-ts-3", "a", "gpu-0", "b")))
        .hasValueSatisfying(
            c ->
                assertThat(c.describe())
                    .isEqualTo(
                        "device gpu-0-ts-3 and device gpu-0 are one GPU (a part and its whole);"
                            + " gpu-0 is held by b"));
    assertThat(whole.partWithWhole(Map.of("gpu-0-ts-3", "a", "gpu-0-ts-1", "b", "gpu-1", "c")))
        .isEmpty();
    assertThat(whole.partWithWhole(Map.of("gpu-0-ts-3", "a", "gpu-0", "a"))).isEmpty();
  }

  @Test
  void theSpecSaysReplicasAndOneModePerGpu() {
    var ok = NodeSpec.EMPTY.withSharing("gpu-0", Optional.of(GpuSharing.timeSliced(4)));
    assertThat(ObjectValidator.validate(node(ok))).isEmpty();
    var few = NodeSpec.EMPTY.withSharing("gpu-0", Optional.of(GpuSharing.timeSliced(1)));
    assertThat(ObjectValidator.validate(node(few)))
        .extracting(v -> v.field() + ": " + v.rule())
        .containsExactly(
            "spec.sharing.gpu-0.replicas: must be from 2 to 48 (how many claims share the GPU)");
    var both = ok.withMig("gpu-0", Optional.of(dev.quartermaster.api.node.MigMode.Dynamic));
    assertThat(ObjectValidator.validate(node(both)))
        .extracting(v -> v.field())
        .containsExactly("spec.sharing.gpu-0");
  }

  private static Node node(NodeSpec spec) {
    return new Node(ObjectMeta.named("node-1"), spec, NodeStatus.EMPTY);
  }
}
