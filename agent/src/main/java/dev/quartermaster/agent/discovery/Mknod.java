package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Creates character device nodes with the system's {@code mknod} (the JDK has no mknod). This is
 * an I/O edge: it needs {@code CAP_MKNOD} (root on a normal host) and fails with the tool's own
 * message otherwise.
 */
public final class Mknod {
  private static final long TIMEOUT_SECONDS = 30;

  private Mknod() {}

  /** NVIDIA's own mode for its nodes (what nvidia-modprobe sets on a real host). */
  public static final int DRIVER_MODE = 0666;

  /**
   * A simulated root's mode: its nodes are real devices standing in for NVIDIA's, so only root
   * may open them (see {@link SimulatedDeviceRoot}).
   */
  public static final int SIMULATED_MODE = 0600;

  /** A node with NVIDIA's mode, {@link #DRIVER_MODE}. */
  public static void charDevice(Path path, DeviceNumber number) throws IOException {
    charDevice(path, number, DRIVER_MODE);
  }

  /**
   * Creates a character device {@code number} at {@code path} with {@code mode} ({@code mknod -m}
   * sets the mode exactly, not through the umask, as nvidia-modprobe's mknod + chmod does).
   */
  public static void charDevice(Path path, DeviceNumber number, int mode) throws IOException {
    if ((mode & ~0777) != 0) {
      throw new IllegalArgumentException("not a permission mode: " + Integer.toOctalString(mode));
    }
    var process = new ProcessBuilder("mknod", "-m", String.format("0%03o", mode), path.toString(), "c",
        Long.toString(number.major()), Long.toString(number.minor()))
        .redirectErrorStream(true)
        .start();
    try {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("mknod " + path + " c " + number + ": no answer in " + TIMEOUT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while creating " + path, e);
    }
    var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (process.exitValue() != 0) {
      throw new IOException("mknod " + path + " c " + number + " failed (exit " + process.exitValue() + "): " + output);
    }
  }
}
