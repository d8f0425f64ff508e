package dev.quartermaster.agent.discovery;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One {@code /proc/driver/nvidia/gpus/<bus>/information} file: {@code Key: value} lines (split at
 * the first colon, both sides trimmed; later keys do not overwrite earlier ones).
 *
 * <p>Real drivers write Model, IRQ, GPU UUID, Video BIOS, Bus Type, DMA Size, DMA Mask, Bus
 * Location, Device Minor and GPU Excluded. They do not write the memory size; a simulated root adds
 * a {@code Memory: <bytes>} line that real files never have (see {@link SimulatedDeviceRoot}).
 */
public record GpuInformation(Map<String, String> fields) {
  public static final String MODEL = "Model";
  public static final String UUID = "GPU UUID";
  public static final String BUS_LOCATION = "Bus Location";
  public static final String DEVICE_MINOR = "Device Minor";
  public static final String EXCLUDED = "GPU Excluded";
  public static final String MEMORY = "Memory";

  public GpuInformation {
    fields = Map.copyOf(fields);
  }

  public static GpuInformation parse(String text) {
    var fields = new LinkedHashMap<String, String>();
    for (var line : text.split("\n")) {
      var colon = line.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      fields.putIfAbsent(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
    }
    return new GpuInformation(fields);
  }

  public Optional<String> field(String key) {
    return Optional.ofNullable(fields.get(key)).filter(v -> !v.isEmpty());
  }

  /** The minor, or empty when absent or not a non-negative integer. */
  public OptionalLong deviceMinor() {
    return number(DEVICE_MINOR);
  }

  /** The simulated root's memory line, when present and a number. */
  public OptionalLong memoryBytes() {
    return number(MEMORY);
  }

  /** Whether the driver excluded this GPU ({@code GPU Excluded: Yes}). */
  public boolean excluded() {
    return field(EXCLUDED).map(v -> v.equalsIgnoreCase("yes")).orElse(false);
  }

  private OptionalLong number(String key) {
    var v = field(key);
    if (v.isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      long n = Long.parseLong(v.get());
      return n < 0 ? OptionalLong.empty() : OptionalLong.of(n);
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
