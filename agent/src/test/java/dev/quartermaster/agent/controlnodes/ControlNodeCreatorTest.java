package dev.quartermaster.agent.controlnodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.NodeStat;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlNodeCreatorTest {

  @TempDir Path dir;

  @Test
  void createsNodesAsNvidiaModprobeDoes() throws Exception {
    var dev = Files.createDirectories(dir.resolve("dev"));
    assumeTrue(ControlNodeCheckTest.canMknod(dev), "needs mknod (run as root)");
    Files.createDirectories(dir.resolve("proc"));
    Files.writeString(
        dir.resolve("proc/devices"),
        "Character devices:\n195 nvidia-frontend\n509 nvidia-uvm\n\nBlock devices:\n");
    Files.writeString(dev.resolve("nvidiactl"), "a broken install left a file here");

    var result = new ControlNodeCreator(dir).createMissing();

    assertThat(result.failures()).isEmpty();
    assertThat(result.created()).hasSize(4);
    assertThat(NodeStat.of(dev.resolve("nvidiactl")))
        .isEqualTo(new NodeStat.CharDevice(new DeviceNumber(195, 255), 0666));
    assertThat(NodeStat.of(dev.resolve("nvidia-modeset")))
        .isEqualTo(new NodeStat.CharDevice(new DeviceNumber(195, 254), 0666));
    assertThat(NodeStat.of(dev.resolve("nvidia-uvm")))
        .isEqualTo(new NodeStat.CharDevice(new DeviceNumber(509, 0), 0666));
    assertThat(NodeStat.of(dev.resolve("nvidia-uvm-tools")))
        .isEqualTo(new NodeStat.CharDevice(new DeviceNumber(509, 1), 0666));
    assertThat(new ControlNodeCheck(dir).check()).isInstanceOf(ControlNodeStatus.Complete.class);
    assertThat(new ControlNodeCreator(dir).createMissing().created())
        .as("second run: nothing to do")
        .isEmpty();
  }

  @Test
  void recreatesASimulatedRootsStandInRootOnly() throws Exception {
    var sim =
        dev.quartermaster.agent.discovery.SimulatedDeviceRoot.builder(dir.resolve("sim"))
            .gpus(1)
            .build();
    assumeTrue(sim.charDevices(), () -> "no stand-ins here: " + sim.fallbackReason().orElse(""));
    sim.removeNode(dev.quartermaster.agent.discovery.ControlNode.NVIDIA_UVM);

    var result = new ControlNodeCreator(sim.root()).createMissing();

    assertThat(result.failures()).isEmpty();
    // A stand-in aliases a real host device: never NVIDIA's 0666 (see SimulatedDeviceRoot).
    assertThat(NodeStat.of(sim.nodePath(dev.quartermaster.agent.discovery.ControlNode.NVIDIA_UVM)))
        .isEqualTo(new NodeStat.CharDevice(sim.standIn("nvidia-uvm"), 0600));
  }

  @Test
  void cannotCreateWhatNoDriverNumbers() throws Exception {
    Files.createDirectories(dir.resolve("proc"));
    Files.writeString(dir.resolve("proc/devices"), "Character devices:\n195 nvidia\n\n");

    var result = new ControlNodeCreator(dir).createMissing();

    assertThat(result.failures())
        .hasSize(2)
        .allSatisfy(f -> assertThat(f).contains("nvidia-uvm").contains("not loaded"));
  }

  @Test
  void restoresASimulatedRootsMissingNodes() throws Exception {
    var sim =
        SimulatedDeviceRoot.builder(dir)
            .gpus(1)
            .without(ControlNode.NVIDIA_UVM, ControlNode.NVIDIA_UVM_TOOLS)
            .build();

    var result = new ControlNodeCreator(sim.root()).createMissing();

    assertThat(result.created())
        .containsExactly(
            sim.nodePath(ControlNode.NVIDIA_UVM), sim.nodePath(ControlNode.NVIDIA_UVM_TOOLS));
    assertThat(new ControlNodeCheck(sim.root()).check())
        .isInstanceOf(ControlNodeStatus.Complete.class);
  }
}
