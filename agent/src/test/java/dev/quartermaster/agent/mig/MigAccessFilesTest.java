package dev.quartermaster.agent.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host's MIG access files: minors by the GPU's minor number, the nvidia-caps major. */
class MigAccessFilesTest {
  @TempDir Path root;

  @Test
  void minorsComeFromTheDriversListByGpuMinorAndTheMajorFromProcDevices() throws Exception {
    Files.createDirectories(root.resolve("proc/driver/nvidia-caps"));
    Files.writeString(
        root.resolve("proc/devices"),
        "Character devices:\n195 nvidia\n236 nvidia-caps\n511 nvidia-uvm\n\nBlock devices:\n");
    Files.writeString(
        root.resolve("proc/driver/nvidia-caps/mig-minors"),
        "config 1\nmonitor 2\ngpu3/gi2/access 300\ngpu3/gi2/ci0/access 301\n");
    var files = MigAccessFiles.read(root);
    assertThat(files.capsMajor()).isEqualTo(236);
    assertThat(files.giMinor(3, 2)).isEqualTo(300);
    assertThat(files.ciMinor(3, 2, 0)).isEqualTo(301);
    // Not listed: the driver's own numbering.
    assertThat(files.giMinor(0, 1)).isEqualTo(MigCapabilities.giMinor(0, 1));

    var oneG = MigGeometry.H200_141GB.profiles().getFirst();
    var instance = new LiveInstance(1, new MigPlacement(oneG, 6), 2, 0, "MIG-x", 300, 301);
    assertThat(files.nodes(instance))
        .containsExactly(
            new VerifiedNode(
                "/dev/nvidia-caps/nvidia-cap300",
                root.resolve("dev/nvidia-caps/nvidia-cap300"),
                new DeviceNumber(236, 300)),
            new VerifiedNode(
                "/dev/nvidia-caps/nvidia-cap301",
                root.resolve("dev/nvidia-caps/nvidia-cap301"),
                new DeviceNumber(236, 301)));
  }

  @Test
  void withoutTheDriversFilesTheMajorIsZeroSoTheDeviceCheckReportsTheNode() throws Exception {
    var files = MigAccessFiles.read(root);
    assertThat(files.capsMajor()).isZero();
    assertThat(files.ciMinor(1, 13, 0)).isEqualTo(MigCapabilities.ciMinor(1, 13, 0));
  }
}
