package dev.quartermaster.agent.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatedDeviceRootTest {

  @TempDir Path dir;

  @Test
  void theProcBackendReadsASimulatedRoot() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir).gpus(2).build();

    var found = (DiscoveryResult.Found) new ProcGpuDiscovery(sim.root()).discover();

    assertThat(found.problems()).isEmpty();
    assertThat(found.gpus()).extracting(DiscoveredGpu::name).containsExactly("gpu-0", "gpu-1");
    assertThat(found.gpus().get(0).memoryBytes()).hasValue(85_520_809_984L);
    assertThat(found.gpus().get(0).toDevice().attributes()).containsEntry("memory", "85520809984");
    assertThat(found.gpus().get(1).node().number()).isEqualTo(sim.standIn("nvidia1"));
    assertThat(ProcDevices.read(sim.root().resolve("proc/devices")).nvidiaMajor()).hasValue(195);
  }

  @Test
  void nodesAreRealCharacterDevicesWithDistinctControlNumbers() throws Exception {
    assumeTrue(Samples.canMknod(dir), "needs mknod (run as root)");
    var sim = SimulatedDeviceRoot.builder(dir).gpus(1).build();
    assumeTrue(sim.charDevices(), () -> "no stand-ins here: " + sim.fallbackReason().orElse(""));

    for (var node : ControlNode.values()) {
      assertThat(NodeStat.of(sim.nodePath(node)))
          .isInstanceOfSatisfying(
              NodeStat.CharDevice.class,
              c -> assertThat(c.number()).isEqualTo(sim.standIn(node.fileName())));
    }
    assertThat(
            java.util.Arrays.stream(ControlNode.values())
                .map(n -> sim.standIn(n.fileName()))
                .distinct())
        .hasSize(4);
    // The host can open each one read-only (the container test relies on it).
    for (var node : ControlNode.values()) {
      try (var ch =
          java.nio.channels.FileChannel.open(
              sim.nodePath(node), java.nio.file.StandardOpenOption.READ)) {
        assertThat(ch.isOpen()).isTrue();
      }
    }
  }

  @Test
  void fallsBackToRegularFilesAndSaysSo() throws Exception {
    var sim =
        SimulatedDeviceRoot.builder(dir)
            .gpus(1)
            .driverName(ProcDevices.NVIDIA_FRONTEND)
            .regularFiles()
            .build();

    assertThat(sim.charDevices()).isFalse();
    assertThat(sim.fallbackReason()).isPresent();
    assertThat(Files.isRegularFile(sim.nodePath(ControlNode.NVIDIACTL))).isTrue();
    var found = (DiscoveryResult.Found) new ProcGpuDiscovery(sim.root()).discover();
    assertThat(found.gpus()).hasSize(1);
    assertThat(
            ProcDevices.read(sim.root().resolve("proc/devices")).major(ProcDevices.NVIDIA_FRONTEND))
        .hasValue(195);
  }

  @Test
  void omittedNodesAreAbsentAndRestorable() throws Exception {
    var sim =
        SimulatedDeviceRoot.builder(dir)
            .gpus(1)
            .without(ControlNode.NVIDIA_UVM)
            .modeset(false)
            .build();

    assertThat(sim.nodePath(ControlNode.NVIDIA_UVM)).doesNotExist();
    assertThat(sim.nodePath(ControlNode.NVIDIA_MODESET)).doesNotExist();
    sim.restoreNode(ControlNode.NVIDIA_UVM);
    assertThat(sim.nodePath(ControlNode.NVIDIA_UVM)).exists();
  }

  @Test
  void ensureBuildsOnceAndThenOpensTheSameRoot() throws Exception {
    var first = SimulatedDeviceRoot.ensure(dir.resolve("node"), 3);
    first.removeNode(ControlNode.NVIDIA_UVM); // a deliberate change survives the restart
    var again = SimulatedDeviceRoot.ensure(dir.resolve("node"), 3);

    assertThat(again.gpuNames()).containsExactly("gpu-0", "gpu-1", "gpu-2");
    assertThat(again.standIn("nvidiactl")).isEqualTo(first.standIn("nvidiactl"));
    assertThat(again.charDevices()).isEqualTo(first.charDevices());
    assertThat(Files.exists(again.nodePath(ControlNode.NVIDIA_UVM))).isFalse();
    again.restoreNode(ControlNode.NVIDIA_UVM);
    assertThat(
            new dev.quartermaster.agent.controlnodes.ControlNodeCheck(again.root()).check().ready())
        .isTrue();
  }
}
