package dev.quartermaster.api.device.use;

import dev.quartermaster.api.device.CounterConsumption;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A node as the tests of device use see it: {@code gpu-0} partitionable (set {@code gpu-0}: 7
 * compute, 8 memory; the whole GPU takes all, a {@code 1g} slice 1 + 1, a {@code 3g} slice 3 + 4),
 * {@code gpu-1} whole and {@code channel-0}, which declare no counters.
 */
final class MigNode {
  private MigNode() {}

  static DeviceSliceSpec slice() {
    var devices = new ArrayList<Device>();
    devices.add(gpu("gpu-0", 7, 8));
    for (int i = 0; i < 7; i++) {
      devices.add(gpu("gpu-0-mig-1g-" + i, 1, 1));
    }
    for (int i = 0; i < 2; i++) {
      devices.add(gpu("gpu-0-mig-3g-" + i, 3, 4));
    }
    devices.add(new Device("gpu-1", "gpu", Map.of(), Device.Health.Healthy, ""));
    devices.add(new Device("channel-0", "channel", Map.of(), Device.Health.Healthy, ""));
    return new DeviceSliceSpec(
        "node-1", devices, List.of(new CounterSet("gpu-0", Map.of("compute", 7L, "memory", 8L))));
  }

  /** The same devices, no counters declared: what every node publishes today. */
  static DeviceSliceSpec today() {
    var s = slice();
    return new DeviceSliceSpec(
        s.node(),
        s.devices().stream()
            .map(d -> new Device(d.name(), d.deviceClass(), d.attributes(), d.health(), ""))
            .toList());
  }

  private static Device gpu(String name, long compute, long memory) {
    return new Device(
        name,
        "gpu",
        Map.of(),
        Device.Health.Healthy,
        "",
        List.of(new CounterConsumption("gpu-0", Map.of("compute", compute, "memory", memory))));
  }
}
