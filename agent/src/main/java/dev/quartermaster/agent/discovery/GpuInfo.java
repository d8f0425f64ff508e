package dev.quartermaster.agent.discovery;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What a discovery backend read about one GPU, before its device node is checked.
 *
 * @param index enumeration order (NVML's index; PCI bus order for /proc)
 * @param memoryBytes total framebuffer memory; empty where the backend cannot tell (the /proc files
 *     of real drivers do not say)
 * @param minor the N of {@code /dev/nvidia<N>}
 * @param pciBusId e.g. {@code 0000:06:00.0}
 */
public record GpuInfo(
    int index, String uuid, String model, OptionalLong memoryBytes, int minor, String pciBusId) {
  public GpuInfo {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(memoryBytes, "memoryBytes");
    Objects.requireNonNull(pciBusId, "pciBusId");
    if (index < 0 || minor < 0) {
      throw new IllegalArgumentException(
          "index and minor must not be negative: " + index + ", " + minor);
    }
  }
}
