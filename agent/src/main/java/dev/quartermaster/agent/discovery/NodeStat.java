package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * What is at a device-node path right now: nothing, a character device with its number, or
 * something else (named, so that a message can say what was found instead).
 *
 * <p>Read with the JDK's {@code unix} attribute view ({@code mode} and {@code rdev}), without
 * following links: a symlink at {@code /dev/nvidia-uvm} is reported as a link, not as whatever it
 * points to, because a container runtime would not follow it either.
 */
public sealed interface NodeStat {

  /** Nothing at the path. */
  record Missing() implements NodeStat {}

  /** A character device and its number. */
  record CharDevice(DeviceNumber number, int permissions) implements NodeStat {}

  /**
   * Something that is not a character device: "a regular file", "a directory", "a block device
   * 7:0"...
   */
  record NotCharDevice(String kind) implements NodeStat {}

  /**
   * Looks at {@code path} now. An unreadable path is reported as {@link NotCharDevice}, with why.
   */
  static NodeStat of(Path path) {
    try {
      var attrs = Files.readAttributes(path, "unix:mode,rdev", LinkOption.NOFOLLOW_LINKS);
      int mode = ((Number) attrs.get("mode")).intValue();
      long rdev = ((Number) attrs.get("rdev")).longValue();
      return switch (mode & 0170000) {
        case 0020000 -> new CharDevice(DeviceNumber.fromRdev(rdev), mode & 07777);
        case 0060000 -> new NotCharDevice("a block device " + DeviceNumber.fromRdev(rdev));
        case 0100000 -> new NotCharDevice("a regular file");
        case 0040000 -> new NotCharDevice("a directory");
        case 0120000 -> new NotCharDevice("a symbolic link");
        case 0010000 -> new NotCharDevice("a FIFO");
        case 0140000 -> new NotCharDevice("a socket");
        default -> new NotCharDevice("a file of mode " + Integer.toOctalString(mode));
      };
    } catch (NoSuchFileException e) {
      return new Missing();
    } catch (IOException | UnsupportedOperationException e) {
      return new NotCharDevice("unreadable (" + e + ")");
    }
  }
}
