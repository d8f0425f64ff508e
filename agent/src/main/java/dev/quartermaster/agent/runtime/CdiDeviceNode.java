package dev.quartermaster.agent.runtime;

import java.util.Objects;

/**
 * One {@code deviceNodes} entry of a resolved CDI spec: the path inside the container, the host
 * path (defaults to the path), and what the device cgroup is told.
 */
public record CdiDeviceNode(String path, String hostPath, String type, long major, long minor, String permissions) {
  public CdiDeviceNode {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(permissions, "permissions");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("CDI device node path must be absolute: " + path);
    }
  }
}
