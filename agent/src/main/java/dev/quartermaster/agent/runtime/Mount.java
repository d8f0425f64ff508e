package dev.quartermaster.agent.runtime;

import java.nio.file.Path;
import java.util.Objects;

/** A bind mount into a task's container: host path, path inside, read-only or not. */
public record Mount(Path hostPath, String containerPath, boolean readOnly) {
  public Mount {
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(containerPath, "containerPath");
    if (!containerPath.startsWith("/")
        || containerPath.contains(":")
        || containerPath.contains(",")) {
      throw new IllegalArgumentException(
          "container path must be absolute, without ':' or ',': " + containerPath);
    }
    if (hostPath.toString().contains(":") || hostPath.toString().contains(",")) {
      throw new IllegalArgumentException("host path must not contain ':' or ',': " + hostPath);
    }
  }
}
