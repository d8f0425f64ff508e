package dev.quartermaster.agent.discovery;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A device node checked on the host just now: where a container sees it ({@code path}, e.g. {@code
 * /dev/nvidia-uvm}), where it is on this machine ({@code hostPath}; different under a simulated
 * root), and the character-device number a CDI spec's {@code deviceNodes} entry must carry ({@code
 * type "c"}, major, minor) so that the runtime's device cgroup allows it.
 */
public record VerifiedNode(String path, Path hostPath, DeviceNumber number) {
  public VerifiedNode {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(number, "number");
  }
}
