package dev.quartermaster.csi.hostpath;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Bind mounts through the system's {@code mount}/{@code umount} (no JNI), and which paths are mount
 * points, from {@code /proc/self/mountinfo}.
 */
final class Mounts {
  private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

  private Mounts() {}

  static void bind(Path source, Path target) throws IOException {
    run("mount", "--bind", source.toString(), target.toString());
  }

  static void remountReadOnly(Path target) throws IOException {
    run("mount", "-o", "remount,bind,ro", target.toString());
  }

  static void unmount(Path target) throws IOException {
    run("umount", target.toString());
  }

  static boolean isMountPoint(Path path) {
    return mountPoints().contains(path.toAbsolutePath().normalize().toString());
  }

  /** Every mount point of this process's namespace (field 5 of mountinfo, unescaped). */
  static List<String> mountPoints() {
    try {
      var points = new ArrayList<String>();
      for (var line : Files.readAllLines(MOUNTINFO, StandardCharsets.UTF_8)) {
        var fields = line.split(" ");
        if (fields.length > 4) {
          points.add(unescape(fields[4]));
        }
      }
      return points;
    } catch (IOException e) {
      return List.of(); // no /proc: nothing we mounted can be seen, and AUTO chose links
    }
  }

  /**
   * Whether bind mounts work here: binds a scratch directory under {@code scratchParent} onto
   * another and undoes it.
   */
  static boolean bindPermitted(Path scratchParent) {
    var source = scratchParent.resolve(".bind-probe-source");
    var target = scratchParent.resolve(".bind-probe-target");
    try {
      Files.createDirectories(source);
      Files.createDirectories(target);
      bind(source, target);
      unmount(target);
      return true;
    } catch (IOException e) {
      return false;
    } finally {
      try {
        Files.deleteIfExists(target);
        Files.deleteIfExists(source);
      } catch (IOException e) {
        // a busy target means the unmount failed; the next probe tries again
      }
    }
  }

  private static String unescape(String field) {
    // mountinfo writes space, tab, newline and backslash as octal escapes.
    return field
        .replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\");
  }

  private static void run(String... command) throws IOException {
    var process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      var output =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish in 30 s");
      }
      if (process.exitValue() != 0) {
        throw new IOException(
            String.join(" ", command) + " failed (exit " + process.exitValue() + "): " + output);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException(String.join(" ", command) + " interrupted", e);
    }
  }
}
