package dev.quartermaster.agent.discovery;

/**
 * What must be at a device-node path: a character device with {@code number}, or, only on a
 * simulated root built where {@code mknod} was not permitted, a regular file standing in for it
 * ({@code regularFileAccepted}); {@code number} is then still what a container spec should carry.
 */
public record NodeExpectation(DeviceNumber number, boolean regularFileAccepted) {

  public static NodeExpectation charDevice(DeviceNumber number) {
    return new NodeExpectation(number, false);
  }

  public static NodeExpectation charDevice(long major, long minor) {
    return charDevice(new DeviceNumber(major, minor));
  }
}
