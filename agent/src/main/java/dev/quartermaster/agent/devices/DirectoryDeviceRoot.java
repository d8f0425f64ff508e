package dev.quartermaster.agent.devices;

import dev.quartermaster.agent.names.SafeNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;

/**
 * A device root that describes GPUs in files, for simulated nodes and tests:
 *
 * <pre>
 * &lt;root&gt;/gpus/&lt;name&gt;/uuid     GPU-0b7d…            (one line each)
 * &lt;root&gt;/gpus/&lt;name&gt;/model    NVIDIA H100 80GB HBM3
 * &lt;root&gt;/gpus/&lt;name&gt;/memory   85899345920          (bytes)
 * &lt;root&gt;/gpus/&lt;name&gt;/minor    0                    (the N of /dev/nvidiaN)
 * &lt;root&gt;/dev/nvidia&lt;minor&gt;          the device node; a regular file here, a char device on real nodes
 * </pre>
 *
 * {@code <name>} is the device name (a DNS label such as {@code gpu-0}). A GPU whose files are
 * missing or malformed is reported in {@link Inventory#problems}, naming the file.
 */
public final class DirectoryDeviceRoot implements DeviceRoot {
  private final Path root;

  public DirectoryDeviceRoot(Path root) {
    this.root = root.toAbsolutePath();
  }

  public Path root() {
    return root;
  }

  @Override
  public Inventory scan() throws IOException {
    var gpus = new ArrayList<Gpu>();
    var problems = new ArrayList<String>();
    var gpuDir = root.resolve("gpus");
    if (!Files.isDirectory(gpuDir)) {
      problems.add("no GPU directory " + gpuDir);
      return new Inventory(gpus, problems);
    }
    try (var dirs = Files.list(gpuDir)) {
      for (var dir : dirs.sorted(Comparator.comparing(Path::toString)).toList()) {
        var name = dir.getFileName().toString();
        if (!Files.isDirectory(dir)) {
          continue;
        }
        if (!SafeNames.isDeviceName(name)) {
          problems.add(dir + ": device name '" + name + "' " + SafeNames.DEVICE_RULE);
          continue;
        }
        try {
          var minor = Integer.parseInt(read(dir.resolve("minor")));
          var memory = Long.parseLong(read(dir.resolve("memory")));
          var devPath = "/dev/nvidia" + minor;
          var host = root.resolve("dev").resolve("nvidia" + minor);
          if (!Files.exists(host)) {
            problems.add(name + ": device node " + host + " is missing");
            continue;
          }
          var node = new DeviceNode(devPath, host.toString(), 'c', DeviceNode.NVIDIA_MAJOR, minor);
          gpus.add(new Gpu(name, read(dir.resolve("uuid")), read(dir.resolve("model")), memory, minor, node));
        } catch (NoSuchFileException e) {
          problems.add(name + ": missing " + e.getFile());
        } catch (NumberFormatException e) {
          problems.add(name + ": not a number in " + dir + " (" + e.getMessage() + ")");
        }
      }
    }
    return new Inventory(gpus, problems);
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8).trim();
  }

  /** Writes a GPU description under {@code root} (for tests, examples and simulated nodes). */
  public static void describeGpu(Path root, String name, String uuid, String model, long memory, int minor)
      throws IOException {
    SafeNames.requireDeviceName(name);
    var dir = Files.createDirectories(root.resolve("gpus").resolve(name));
    Files.writeString(dir.resolve("uuid"), uuid + "\n");
    Files.writeString(dir.resolve("model"), model + "\n");
    Files.writeString(dir.resolve("memory"), memory + "\n");
    Files.writeString(dir.resolve("minor"), minor + "\n");
    var dev = Files.createDirectories(root.resolve("dev"));
    var node = dev.resolve("nvidia" + minor);
    if (!Files.exists(node)) {
      Files.createFile(node);
    }
  }
}
