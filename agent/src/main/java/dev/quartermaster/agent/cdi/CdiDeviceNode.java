package dev.quartermaster.agent.cdi;

import dev.quartermaster.agent.discovery.VerifiedNode;
import java.util.Objects;

/**
 * One {@code deviceNodes} entry of a CDI spec, as the agent writes it and as a runtime resolves it:
 * the path inside the container, the host path (defaults to the path), and what the device cgroup
 * is told (type, major, minor, permissions).
 */
public record CdiDeviceNode(
    String path, String hostPath, String type, long major, long minor, String permissions) {
  public CdiDeviceNode {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(permissions, "permissions");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("CDI device node path must be absolute: " + path);
    }
  }

  /** A checked character device, read-write (what CUDA opens its nodes with). */
  public static CdiDeviceNode of(VerifiedNode node) {
    return new CdiDeviceNode(
        node.path(),
        node.hostPath().toString(),
        "c",
        node.number().major(),
        node.number().minor(),
        "rw");
  }

  /** Whether the host path differs from the container path (a CDI 0.5.0 feature). */
  public boolean hasHostPath() {
    return !hostPath.equals(path);
  }
}
