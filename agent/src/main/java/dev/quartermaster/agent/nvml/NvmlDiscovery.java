package dev.quartermaster.agent.nvml;

import dev.quartermaster.agent.discovery.DiscoveryResult;
import dev.quartermaster.agent.discovery.GpuDiscovery;
import dev.quartermaster.agent.discovery.GpuInfo;
import dev.quartermaster.agent.discovery.GpuNodes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Finds GPUs through NVML: count, then per index its handle, UUID, name, minor number, memory and
 * PCI bus id; each GPU's {@code /dev/nvidia<minor>} is then checked under {@code root} like the
 * /proc backend does. An error on one GPU leaves that GPU out with the call and NVML's text (one
 * lost GPU must not hide the others); no library or a failed init is {@link
 * DiscoveryResult.Unavailable}.
 */
public final class NvmlDiscovery implements GpuDiscovery {
  public static final String SOURCE = "nvml";

  private final Supplier<NvmlLoad> loader;
  private final Path root;

  /**
   * NVML from {@code loader} (normally {@link NvmlLibrary#load()}), device nodes under {@code
   * root}.
   */
  public NvmlDiscovery(Supplier<NvmlLoad> loader, Path root) {
    this.loader = loader;
    this.root = root.toAbsolutePath();
  }

  @Override
  public DiscoveryResult discover() {
    return switch (loader.get()) {
      case NvmlLoad.Unavailable u -> new DiscoveryResult.Unavailable(SOURCE, u.reason());
      case NvmlLoad.Loaded l -> discover(l.library());
    };
  }

  private DiscoveryResult discover(NvmlLibrary nvml) {
    try (nvml) {
      try {
        nvml.init();
      } catch (NvmlException e) {
        return new DiscoveryResult.Unavailable(SOURCE, e.getMessage());
      }
      try {
        int count;
        try {
          count = nvml.deviceCount();
        } catch (NvmlException e) {
          return new DiscoveryResult.Unavailable(SOURCE, e.getMessage());
        }
        var infos = new ArrayList<GpuInfo>();
        var problems = new ArrayList<String>();
        for (int i = 0; i < count; i++) {
          try {
            var device = nvml.handleByIndex(i);
            var uuid = nvml.uuid(device);
            infos.add(
                new GpuInfo(
                    i,
                    uuid,
                    nvml.deviceName(device),
                    OptionalLong.of(nvml.memoryTotal(device)),
                    nvml.minorNumber(device),
                    nvml.pciBusId(device).orElse("")));
          } catch (NvmlException e) {
            problems.add("gpu-" + i + ": " + e.getMessage());
          }
        }
        return GpuNodes.verify(root, SOURCE, infos, problems);
      } finally {
        try {
          nvml.shutdown();
        } catch (NvmlException e) {
          // Nothing to undo: the look is over either way.
        }
      }
    }
  }
}
