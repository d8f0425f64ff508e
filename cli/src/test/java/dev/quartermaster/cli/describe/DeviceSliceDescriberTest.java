package dev.quartermaster.cli.describe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.sim.SimStore;
import dev.quartermaster.sim.WatchFaults;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.util.ArrayList;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node's slice lists its GPUs and counts its 2,048 channels (describe printed 2,065 lines for one
 * node); {@code --devices} lists every one.
 */
class DeviceSliceDescriberTest {
  @Test
  void channelsAreCountedByHealthUnlessEveryDeviceIsAskedFor() {
    var devices = new ArrayList<Device>();
    devices.add(new Device("gpu-0", "gpu", Map.of("model", "H100"), Device.Health.Healthy, ""));
    for (int i = 0; i < 2048; i++) {
      devices.add(
          new Device(
              "channel-" + i,
              "channel",
              Map.of(),
              i < 2 ? Device.Health.Unhealthy : Device.Health.Healthy,
              ""));
    }
    var slice =
        new DeviceSlice(ObjectMeta.named("node-1"), new DeviceSliceSpec("node-1", devices), null);
    var env = new DeterministicEnv(1);
    var api = new ObjectRegistry(new SimStore(env, WatchFaults.NONE), env);

    var summary = Describers.describe(slice, new DescribeContext(api, env.now(), false));
    assertThat(summary.lines().count()).isLessThan(30);
    assertThat(summary)
        .contains("gpu-0")
        .contains("Channels:    2048 (2046 Healthy, 2 Unhealthy; --devices lists each)")
        .doesNotContain("channel-7");

    var every = Describers.describe(slice, new DescribeContext(api, env.now(), true));
    assertThat(every).contains("channel-2047").doesNotContain("--devices lists each");
  }
}
