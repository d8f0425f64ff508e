package dev.quartermaster.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.DiscoveryResult;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's DeviceSlice with 8 GPUs and 2,048 IMEX channels stays compact: channels carry a name and
 * a class, no attributes.
 */
class SliceSizeTest {
  @TempDir Path dir;

  @Test
  void eightGpusAndTwoThousandFortyEightChannelsEncodeCompactly() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(8).build();
    var gpus = ((DiscoveryResult.Found) new ProcGpuDiscovery(sim.root()).discover()).gpus();
    var channels = ImexChannels.scan(sim.root()).channels();
    assertThat(gpus).hasSize(8);
    assertThat(channels).hasSize(2048);
    var devices =
        Stream.concat(
                gpus.stream()
                    .map(DiscoveredGpu::toDevice)
                    .map(
                        d ->
                            new Device(
                                d.name(),
                                d.deviceClass(),
                                d.attributes(),
                                Device.Health.Healthy,
                                "")),
                channels.stream().map(DiscoveredChannel::toDevice))
            .toList();
    var slice =
        new DeviceSlice(ObjectMeta.named("node-1"), new DeviceSliceSpec("node-1", devices), null);

    var json = ObjectCodec.toJson(slice);

    System.out.printf(
        "DeviceSlice of 8 GPUs + 2,048 IMEX channels: %d bytes of JSON%n", json.length);
    assertThat(
            new String(
                ObjectCodec.toJson(
                    new DeviceSlice(
                        ObjectMeta.named("n"),
                        new DeviceSliceSpec("n", java.util.List.of(channels.getFirst().toDevice())),
                        null)),
                java.nio.charset.StandardCharsets.UTF_8))
        .contains("{\"name\":\"channel-0\",\"class\":\"channel\",\"health\":\"Healthy\"}");
    // about 61 bytes a channel (their names, the class, "Healthy"): far below the 1 MiB body limit
    assertThat(json.length).isLessThan(2048 * 62 + 8 * 400);
    assertThat(ObjectCodec.fromJson(json, Kinds.DEVICE_SLICE)).isEqualTo(slice);
  }
}
