package dev.quartermaster.agent.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedGpuModel;
import dev.quartermaster.api.device.mig.MigGeometry;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A simulated root's MIG state survives its agent: what one {@link MigFiles} saved, another opened
 * on the same root reads back, with each instance's capability nodes made and removed with it.
 */
class MigFilesTest {
  @TempDir Path dir;

  @Test
  void whatOneAgentMadeTheNextReadsBackWithItsNodes() throws Exception {
    var root =
        SimulatedDeviceRoot.builder(dir).gpus(1).channels(0).model(SimulatedGpuModel.H200).build();
    var first = new SimulatedMig(new MigFiles(root), nodes -> false);
    first.setEnabled(0, true);
    var gpu = new MigGpu(0, "gpu-0", MigGeometry.H200_141GB);
    var placements = MigGeometry.H200_141GB.placements();
    var a = first.create(gpu, placements.get(0));
    var b = first.create(gpu, placements.get(1));

    var files = new MigFiles(SimulatedDeviceRoot.open(dir));
    var again = new SimulatedMig(files, nodes -> false);
    assertThat(again.enabled(0)).isTrue();
    assertThat(again.instances(gpu)).containsExactly(a, b);
    assertThat(files.load()).isEqualTo(new MigFiles(root).load());
    assertThat(again.capabilityNodes(a)).allMatch(MigFiles::present).hasSize(2);
    assertThat(Files.readAllLines(files.stateFile()).stream().filter(l -> l.startsWith("instance")))
        .hasSize(2);

    again.destroy(a);
    assertThat(again.capabilityNodes(a)).noneMatch(MigFiles::present);
    assertThat(again.capabilityNodes(b)).allMatch(MigFiles::present);
    assertThat(
            new SimulatedMig(new MigFiles(SimulatedDeviceRoot.open(dir)), n -> false)
                .instances(gpu))
        .containsExactly(b);
  }
}
