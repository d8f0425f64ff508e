package dev.quartermaster.agent.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The /proc backend on a tree laid out like a real host, with NVIDIA's real numbers. */
class ProcGpuDiscoveryTest {

  @TempDir Path root;

  private void hostWith(String procDevices, String... informationSamples) throws Exception {
    Files.createDirectories(root.resolve("proc"));
    Files.writeString(root.resolve("proc/devices"), Samples.read(procDevices));
    Files.createDirectories(root.resolve("dev"));
    for (var sample : informationSamples) {
      var info = GpuInformation.parse(Samples.read(sample));
      var dir =
          Files.createDirectories(
              root.resolve("proc/driver/nvidia/gpus")
                  .resolve(info.field(GpuInformation.BUS_LOCATION).orElseThrow()));
      Files.writeString(dir.resolve("information"), Samples.read(sample));
    }
  }

  @Test
  void findsGpusInBusOrderWithTheirNodes() throws Exception {
    assumeTrue(
        Samples.canMknod(Files.createDirectories(root.resolve("dev"))),
        "needs mknod (run as root)");
    hostWith("proc-devices-550.txt", "information-h100.txt", "information-v100.txt");
    // Nodes with NVIDIA's real numbers: creating them needs no driver, only CAP_MKNOD.
    Mknod.charDevice(root.resolve("dev/nvidia0"), new DeviceNumber(195, 0));
    Mknod.charDevice(root.resolve("dev/nvidia3"), new DeviceNumber(195, 3));

    var found = (DiscoveryResult.Found) new ProcGpuDiscovery(root).discover();

    assertThat(found.problems()).isEmpty();
    assertThat(found.gpus())
        .extracting(
            DiscoveredGpu::name, DiscoveredGpu::uuid, DiscoveredGpu::minor, DiscoveredGpu::pciBusId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "gpu-0", "GPU-edfee158-11c1-52b8-0517-92f30e7fac88", 0, "0000:06:00.0"),
            org.assertj.core.groups.Tuple.tuple(
                "gpu-1", "GPU-9c1a6b2e-3d4f-5a6b-7c8d-9e0f1a2b3c4d", 3, "0000:2a:00.0"));
    var gpu1 = found.gpus().get(1);
    assertThat(gpu1.node())
        .isEqualTo(
            new VerifiedNode(
                "/dev/nvidia3", root.resolve("dev/nvidia3"), new DeviceNumber(195, 3)));
    var device = gpu1.toDevice();
    assertThat(device.deviceClass()).isEqualTo("gpu");
    assertThat(device.attributes())
        .containsEntry("uuid", gpu1.uuid())
        .containsEntry("model", "NVIDIA H100 80GB HBM3")
        .containsEntry("minor", "3")
        .doesNotContainKey("memory");
  }

  @Test
  void olderDriverNameWorksTheSame() throws Exception {
    assumeTrue(
        Samples.canMknod(Files.createDirectories(root.resolve("dev"))),
        "needs mknod (run as root)");
    hostWith("proc-devices-470.txt", "information-v100.txt");
    Mknod.charDevice(root.resolve("dev/nvidia0"), new DeviceNumber(195, 0));

    var found = (DiscoveryResult.Found) new ProcGpuDiscovery(root).discover();

    assertThat(found.gpus()).extracting(DiscoveredGpu::name).containsExactly("gpu-0");
  }

  @Test
  void aGpuWhoseNodeIsWrongIsLeftOutAndNamed() throws Exception {
    hostWith(
        "proc-devices-550.txt",
        "information-v100.txt",
        "information-h100.txt",
        "information-excluded.txt");
    Files.writeString(root.resolve("dev/nvidia0"), "oops");

    var found = (DiscoveryResult.Found) new ProcGpuDiscovery(root).discover();

    assertThat(found.gpus()).isEmpty();
    assertThat(found.problems())
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains(
                        root.resolve("dev/nvidia0")
                            + " is a regular file, expected a character device 195:0"))
        .anySatisfy(p -> assertThat(p).contains("missing " + root.resolve("dev/nvidia3")))
        .anySatisfy(p -> assertThat(p).contains("excluded by the driver"));
  }

  @Test
  void noDriverIsUnavailableNotACrash() {
    var result = new ProcGpuDiscovery(root).discover();
    assertThat(result)
        .isInstanceOfSatisfying(
            DiscoveryResult.Unavailable.class,
            u -> assertThat(u.reason()).contains("proc/driver/nvidia/gpus").contains("not loaded"));
  }
}
