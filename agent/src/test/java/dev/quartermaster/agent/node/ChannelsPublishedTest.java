package dev.quartermaster.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.devices.NodeDevices;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.health.HealthPolicy;
import dev.quartermaster.agent.host.HostDeviceTree;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.core.env.DeterministicEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the node publishes of its IMEX channels: every channel a device of class {@code channel},
 * and DevicesReady counting them; without the driver's channel major, none, and DevicesReady says
 * why (the node stays ready: its GPUs are usable without channels).
 */
class ChannelsPublishedTest {
  private static final Supplier<NvmlLoad> NO_NVML =
      () -> {
        throw new AssertionError("a simulated root is never read through NVML");
      };

  @TempDir Path dir;

  private static NodeDevices devices(Path root) {
    var tree = new HostDeviceTree(DeviceRoot.at(root), NO_NVML, Duration.ofSeconds(1));
    return NodeDevices.start(
        new DeterministicEnv(7), tree, HealthPolicy.defaults(Duration.ofHours(1)), () -> {});
  }

  @Test
  void everyChannelIsPublishedAndCounted() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(2).channels(6).build();
    try (var devices = devices(sim.root())) {
      var published = devices.devices();

      assertThat(published)
          .extracting(Device::name)
          .containsExactly(
              "gpu-0",
              "gpu-1",
              "channel-0",
              "channel-1",
              "channel-2",
              "channel-3",
              "channel-4",
              "channel-5");
      assertThat(published.subList(2, 8))
          .allSatisfy(
              d -> {
                assertThat(d.deviceClass()).isEqualTo("channel");
                assertThat(d.health()).isEqualTo(Device.Health.Healthy);
              });
      var ready = DevicesReady.of(new ControlNodeCheck(sim.root()).check(), devices.inventory());
      assertThat(ready.status()).isEqualTo(Condition.Status.True);
      assertThat(ready.message()).isEqualTo("2 GPUs (proc); 6 IMEX channels");

      // A channel node going away is seen at the next rescan: left out, and named.
      Files.delete(sim.channelPath(4));
      devices.rescan();
      assertThat(devices.devices())
          .extracting(Device::name)
          .doesNotContain("channel-4")
          .contains("channel-5");
    }
  }

  @Test
  void withoutTheChannelMajorNoChannelIsPublishedAndDevicesReadySaysWhy() throws Exception {
    var sim =
        SimulatedDeviceRoot.builder(dir.resolve("node"))
            .gpus(2)
            .channels(6)
            .withoutImexChannelsMajor()
            .build();
    try (var devices = devices(sim.root())) {
      assertThat(devices.devices()).extracting(Device::deviceClass).containsOnly("gpu").hasSize(2);

      var ready = DevicesReady.of(new ControlNodeCheck(sim.root()).check(), devices.inventory());

      assertThat(ready.status()).isEqualTo(Condition.Status.True);
      assertThat(ready.message())
          .isEqualTo(
              "2 GPUs (proc); no IMEX channels: "
                  + sim.root().resolve("proc/devices")
                  + " lists no nvidia-caps-imex-channels major (the NVIDIA driver offers no IMEX channels)");
    }
  }
}
