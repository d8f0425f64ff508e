package dev.quartermaster.api.device.use;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import java.util.Optional;

/**
 * Which device another is part of: a MIG slice or a time-sliced replica is part of its GPU. A
 * published device says so by its {@code parent} attribute; a device no longer published (held
 * since a mode change) by its name ({@code gpu-0-mig-…}, {@code gpu-0-ts-…}, {@code gpu-0-mps…}),
 * so that a part held from an older slice still excludes its whole.
 */
public final class Parts {
  /** The attribute naming the device a device is part of. */
  public static final String PARENT = "parent";

  private static final String MIG = "-mig-";

  private Parts() {}

  /** The device {@code device} says it is part of, if any. */
  public static Optional<String> parentOf(Device device) {
    return Optional.ofNullable(device.attributes().get(PARENT))
        .filter(p -> !p.isEmpty() && !p.equals(device.name()));
  }

  /** The device the device named {@code device} is part of by its name, if any. */
  public static Optional<String> parentByName(String device) {
    int mig = device.indexOf(MIG);
    if (mig > 0) {
      return Optional.of(device.substring(0, mig));
    }
    if (device.contains("-ts-")) {
      return TimeSlices.parse(device).map(TimeSlices.Replica::gpu);
    }
    if (device.contains("-mps")) {
      return MpsShares.parse(device).map(MpsShare::gpu).or(() -> MpsShares.gpuOfTemplate(device));
    }
    return Optional.empty(); // asked of every holding of a node: most are not parts
  }
}
