package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.ProcDevices;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A host's MIG access files as the driver numbers them: the minors from {@code
 * /proc/driver/nvidia-caps/mig-minors} ({@link MigMinors}; the driver's own numbering, {@link
 * MigCapabilities}, where the file is silent), the {@code nvidia-caps} major from {@code
 * /proc/devices}, and the files under {@code <root>/dev/nvidia-caps/}. The driver names a GPU in
 * them by its <em>minor number</em> ({@code /dev/nvidia<minor>}), not its NVML index.
 *
 * @param root the device root ({@code /} on a host)
 * @param capsMajor the {@code nvidia-caps} major; 0 where the driver registered none, so that the
 *     device check reports the node rather than the agent guessing a number
 */
public record MigAccessFiles(Path root, long capsMajor, MigMinors minors) {

  /** Reads them under {@code root} now; absent files read as empty. */
  public static MigAccessFiles read(Path root) throws IOException {
    var devices = ProcDevices.read(root.resolve("proc/devices"));
    String text;
    try {
      text =
          Files.readString(root.resolve(MigMinors.PROC_FILE.substring(1)), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      text = "";
    }
    return new MigAccessFiles(
        root, devices.major(ProcDevices.NVIDIA_CAPS).orElse(0), MigMinors.parse(text));
  }

  /** Files that say nothing: the driver's numbering, major 0. */
  public static MigAccessFiles none(Path root) {
    return new MigAccessFiles(root, 0, new MigMinors(Map.of()));
  }

  /** The minor of GPU instance {@code gi}'s access file on the GPU with minor {@code gpuMinor}. */
  public int giMinor(int gpuMinor, int gi) {
    return minors.gpuInstance(gpuMinor, gi).orElse(MigCapabilities.giMinor(gpuMinor, gi));
  }

  /** The minor of compute instance {@code ci}'s access file in that GPU instance. */
  public int ciMinor(int gpuMinor, int gi, int ci) {
    return minors
        .computeInstance(gpuMinor, gi, ci)
        .orElse(MigCapabilities.ciMinor(gpuMinor, gi, ci));
  }

  /** The GI's then the CI's access node of {@code instance}, as a container must get them. */
  public List<VerifiedNode> nodes(LiveInstance instance) {
    return List.of(instance.giCapMinor(), instance.ciCapMinor()).stream()
        .map(
            minor ->
                new VerifiedNode(
                    MigCapabilities.containerPath(minor),
                    root.resolve(MigCapabilities.containerPath(minor).substring(1)),
                    new DeviceNumber(capsMajor, minor)))
        .toList();
  }
}
