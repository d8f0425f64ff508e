package dev.quartermaster.agent.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImexChannelsTest {
  @TempDir Path dir;

  @Test
  void aSimulatedRootHasTwoThousandFortyEightChannelsLaidOutAsOnARealNode() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(8).build();

    assertThat(sim.channelCount()).isEqualTo(SimulatedDeviceRoot.DEFAULT_CHANNELS).isEqualTo(2048);
    assertThat(Files.readString(sim.root().resolve("proc/devices")))
        .containsPattern("(?m)^\\d+ nvidia-caps-imex-channels$");
    assertThat(sim.channelDir()).isEqualTo(sim.root().resolve("dev/nvidia-caps-imex-channels"));
    try (var list = Files.list(sim.channelDir())) {
      assertThat(list.map(p -> p.getFileName().toString()).sorted())
          .containsExactlyInAnyOrderElementsOf(
              IntStream.range(0, 2048).mapToObj(i -> "channel" + i).toList());
    }

    var found = ImexChannels.scan(sim.root());

    assertThat(found.absentReason()).isEmpty();
    assertThat(found.problems()).isEmpty();
    assertThat(found.channels()).hasSize(2048);
    for (int i = 0; i < 2048; i++) {
      var c = found.channels().get(i);
      assertThat(c.id()).isEqualTo(i);
      assertThat(c.name()).isEqualTo("channel-" + i);
      assertThat(c.node().path()).isEqualTo("/dev/nvidia-caps-imex-channels/channel" + i);
      assertThat(c.node().hostPath()).isEqualTo(sim.channelPath(i));
      // a stand-in number (never NVIDIA's), the one the root recorded for this node
      assertThat(c.node().number()).isEqualTo(sim.standIn("nvidia-caps-imex-channels/channel" + i));
    }
    assertThat(found.channel("channel-2047")).map(DiscoveredChannel::id).contains(2047);
    assertThat(found.channel("channel-2048")).isEmpty();
    assertThat(found.channel("gpu-0")).isEmpty();
    assertThat(found.channel("channel-07")).isEmpty();
    assertThat(found.channel("channel-+7")).isEmpty();
    assertThat(found.channel("channel-7")).map(DiscoveredChannel::id).contains(7);
    assertThat(found.channels().getFirst().toDevice().deviceClass()).isEqualTo("channel");

    var reopened = SimulatedDeviceRoot.open(sim.root());
    assertThat(reopened.channelCount()).isEqualTo(2048);
  }

  @Test
  void theCountIsConfigurable() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(1).channels(3).build();

    assertThat(ImexChannels.scan(sim.root()).channels())
        .extracting(DiscoveredChannel::name)
        .containsExactly("channel-0", "channel-1", "channel-2");
    assertThat(SimulatedDeviceRoot.ensure(sim.root(), 1, 99).channelCount())
        .as("an existing root is opened as it is")
        .isEqualTo(3);
  }

  @Test
  void onADriverRootTheMajorComesFromProcDevicesAndTheMinorIsTheChannel() throws Exception {
    assumeTrue(Samples.canMknod(dir), "needs mknod (run as root)");
    var root = dir.resolve("host");
    Files.createDirectories(root.resolve("proc"));
    Files.writeString(
        root.resolve("proc/devices"),
        """
        Character devices:
        195 nvidia
        508 nvidia-caps-imex-channels
        509 nvidia-uvm

        Block devices:
        510 not-this-one
        """);
    var channels = Files.createDirectories(root.resolve("dev/nvidia-caps-imex-channels"));
    for (int id : new int[] {0, 1, 2, 7, 300}) {
      Mknod.charDevice(channels.resolve("channel" + id), new DeviceNumber(508, id));
    }
    Mknod.charDevice(channels.resolve("channel5"), new DeviceNumber(508, 4)); // wrong minor
    Files.writeString(channels.resolve("channel6"), "not a device");
    Files.writeString(channels.resolve("README"), "ignored");

    var found = ImexChannels.scan(root);

    assertThat(found.channels())
        .extracting(DiscoveredChannel::name)
        .containsExactly("channel-0", "channel-1", "channel-2", "channel-7", "channel-300");
    assertThat(found.channels())
        .allSatisfy(c -> assertThat(c.node().number()).isEqualTo(new DeviceNumber(508, c.id())));
    assertThat(found.channel("channel-300"))
        .map(c -> c.node().path())
        .contains("/dev/nvidia-caps-imex-channels/channel300");
    assertThat(found.problems())
        .containsExactly(
            "channel-5: "
                + channels.resolve("channel5")
                + " is a character device 508:4, expected a character device 508:5",
            "channel-6: "
                + channels.resolve("channel6")
                + " is a regular file, expected a character device 508:6");
    assertThat(found.summary()).startsWith("5 IMEX channels; channels left out: channel-5: ");
  }

  @Test
  void withoutTheChannelMajorTheNodeHasNoChannelsAndSaysWhy() throws Exception {
    var sim =
        SimulatedDeviceRoot.builder(dir.resolve("node"))
            .gpus(1)
            .channels(4)
            .withoutImexChannelsMajor()
            .build();
    assertThat(Files.exists(sim.channelPath(0)))
        .as("the nodes are there; the driver does not offer them")
        .isTrue();

    var found = ImexChannels.scan(sim.root());

    assertThat(found.channels()).isEmpty();
    assertThat(found.absentReason())
        .contains(
            sim.root().resolve("proc/devices")
                + " lists no nvidia-caps-imex-channels major (the NVIDIA driver offers no IMEX channels)");
    assertThat(found.summary()).startsWith("no IMEX channels: ");
  }

  @Test
  void withoutChannelNodesTheReasonNamesTheDirectory() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(1).channels(0).build();

    var found = ImexChannels.scan(sim.root());

    assertThat(found.channels()).isEmpty();
    assertThat(found.absentReason())
        .contains("no directory " + sim.channelDir() + " (no IMEX channel node was made)");
  }
}
