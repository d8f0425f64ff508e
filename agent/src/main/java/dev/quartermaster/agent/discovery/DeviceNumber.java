package dev.quartermaster.agent.discovery;

/**
 * A character device's number, {@code major:minor}, as the kernel and a device cgroup see it.
 *
 * <p>Linux packs both into {@code st_rdev} (glibc's {@code gnu_dev_major/minor}): the major is bits
 * 8..19 and 32..43, the minor bits 0..7 and 20..39. {@link #fromRdev} undoes that, so that minors
 * above 255 (misc devices such as 10:258) and large dynamic majors (nvidia-uvm is often 5xx) come
 * out right.
 */
public record DeviceNumber(long major, long minor) {

  public DeviceNumber {
    if (major < 0 || minor < 0) {
      throw new IllegalArgumentException(
          "device number must not be negative: " + major + ":" + minor);
    }
  }

  /** Decodes a Linux {@code st_rdev} value. */
  public static DeviceNumber fromRdev(long rdev) {
    long major = ((rdev >>> 8) & 0xfffL) | ((rdev >>> 32) & 0xfffff000L);
    long minor = (rdev & 0xffL) | ((rdev >>> 12) & 0xffffff00L);
    return new DeviceNumber(major, minor);
  }

  /** Parses {@code "195:255"}. */
  public static DeviceNumber parse(String text) {
    var colon = text.indexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException(
          "not a device number (expected major:minor): '" + text + "'");
    }
    try {
      return new DeviceNumber(
          Long.parseLong(text.substring(0, colon).trim()),
          Long.parseLong(text.substring(colon + 1).trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "not a device number (expected major:minor): '" + text + "'", e);
    }
  }

  @Override
  public String toString() {
    return major + ":" + minor;
  }
}
