package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Recorded /proc samples (test resources under {@code discovery/}) and a mknod probe. */
public final class Samples {
  private Samples() {}

  public static String read(String name) {
    try (var in = Samples.class.getResourceAsStream("/discovery/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource discovery/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether this process may create character devices under {@code dir} (root, CAP_MKNOD). */
  public static boolean canMknod(Path dir) {
    var probe = dir.resolve(".mknod-probe");
    try {
      Mknod.charDevice(probe, new DeviceNumber(1, 3));
      Files.delete(probe);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
