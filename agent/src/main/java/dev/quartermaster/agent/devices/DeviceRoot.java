package dev.quartermaster.agent.devices;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the agent finds its devices: a directory laid out like a host's {@code /dev} and {@code
 * /proc} ({@code /} on a real host; a {@link dev.quartermaster.agent.discovery.SimulatedDeviceRoot}
 * on a simulated node). Discovery, the control-node checks and the health source all read under it.
 */
public record DeviceRoot(Path path) {
  public DeviceRoot {
    Objects.requireNonNull(path, "path");
    path = path.toAbsolutePath().normalize();
  }

  /** The device root at {@code path}. */
  public static DeviceRoot at(Path path) {
    return new DeviceRoot(path);
  }

  /** This machine's own {@code /}. */
  public static DeviceRoot host() {
    return new DeviceRoot(Path.of("/"));
  }

  /** Whether this is the host's own root (then NVML, when it loads, is the discovery backend). */
  public boolean isHost() {
    return path.getParent() == null;
  }
}
