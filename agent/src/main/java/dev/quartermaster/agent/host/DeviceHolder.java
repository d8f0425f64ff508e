package dev.quartermaster.agent.host;

import java.util.Objects;

/**
 * A live process that has a device open: which device ({@code gpu-1}), the process ({@code pid} and
 * its command line) and the path its open file reads as ({@code /dev/nvidia1}; inside a container
 * that is the container's path).
 */
public record DeviceHolder(String device, long pid, String command, String openedAs) {
  public DeviceHolder {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(openedAs, "openedAs");
  }

  /** {@code pid 4242 (sleep 600) has /dev/nvidia1 open}. */
  public String describe() {
    return "pid " + pid + " (" + command + ") has " + openedAs + " open";
  }
}
