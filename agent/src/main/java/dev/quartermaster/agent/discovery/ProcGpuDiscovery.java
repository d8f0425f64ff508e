package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Finds GPUs without NVML: every {@code <root>/proc/driver/nvidia/gpus/<bus>/information}, in PCI
 * bus order (which is NVML's default index order), each checked against its {@code
 * <root>/dev/nvidia<minor>} and {@code <root>/proc/devices}. {@code root} is {@code /} on a real
 * host and a directory on a simulated node ({@link SimulatedDeviceRoot}).
 */
public final class ProcGpuDiscovery implements GpuDiscovery {
  public static final String SOURCE = "proc";

  private final Path root;

  public ProcGpuDiscovery(Path root) {
    this.root = root.toAbsolutePath();
  }

  public Path root() {
    return root;
  }

  @Override
  public DiscoveryResult discover() {
    var gpusDir = root.resolve("proc/driver/nvidia/gpus");
    if (!Files.isDirectory(gpusDir)) {
      return new DiscoveryResult.Unavailable(
          SOURCE, "no " + gpusDir + " (the NVIDIA driver is not loaded)");
    }
    List<Path> dirs;
    try (var list = Files.list(gpusDir)) {
      dirs =
          list.filter(Files::isDirectory)
              .sorted(Comparator.comparing(p -> p.getFileName().toString()))
              .toList();
    } catch (IOException e) {
      return new DiscoveryResult.Unavailable(SOURCE, "cannot list " + gpusDir + ": " + e);
    }
    var infos = new ArrayList<GpuInfo>();
    var problems = new ArrayList<String>();
    for (var dir : dirs) {
      var file = dir.resolve("information");
      GpuInformation info;
      try {
        info = GpuInformation.parse(Files.readString(file, StandardCharsets.UTF_8));
      } catch (NoSuchFileException e) {
        problems.add("missing " + file);
        continue;
      } catch (IOException e) {
        problems.add("cannot read " + file + ": " + e);
        continue;
      }
      var uuid = info.field(GpuInformation.UUID);
      var model = info.field(GpuInformation.MODEL);
      var minor = info.deviceMinor();
      if (uuid.isEmpty()
          || model.isEmpty()
          || minor.isEmpty()
          || minor.getAsLong() > Integer.MAX_VALUE) {
        problems.add(
            file
                + ": needs '"
                + GpuInformation.MODEL
                + "', '"
                + GpuInformation.UUID
                + "' and a numeric '"
                + GpuInformation.DEVICE_MINOR
                + "'");
        continue;
      }
      if (info.excluded()) {
        problems.add(
            file + ": GPU " + uuid.get() + " is excluded by the driver (GPU Excluded: Yes)");
        continue;
      }
      var bus = info.field(GpuInformation.BUS_LOCATION).orElse(dir.getFileName().toString());
      infos.add(
          new GpuInfo(
              infos.size(),
              uuid.get(),
              model.get(),
              info.memoryBytes(),
              (int) minor.getAsLong(),
              bus));
    }
    return GpuNodes.verify(root, SOURCE, infos, problems);
  }
}
