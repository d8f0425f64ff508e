package dev.quartermaster.agent.devices;

import java.util.Objects;

/**
 * A device node a container needs: {@code path} inside the container, {@code hostPath} on this
 * machine (different under a simulated device root), and its char-device numbers.
 */
public record DeviceNode(String path, String hostPath, char type, long major, long minor) {
  /** The NVIDIA GPU char major: /dev/nvidia&lt;N&gt; is 195:N. */
  public static final long NVIDIA_MAJOR = 195;

  public DeviceNode {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(hostPath, "hostPath");
    if (type != 'c' && type != 'b') {
      throw new IllegalArgumentException("device node type must be 'c' or 'b': " + type);
    }
  }
}
