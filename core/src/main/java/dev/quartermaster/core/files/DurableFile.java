package dev.quartermaster.core.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a small file so that a crash leaves either the old content or the new, never a mix:
 * written to a sibling temp file (owner-only from creation), fsynced, renamed over the target, and
 * the directory fsynced so that the rename itself is durable.
 */
public final class DurableFile {
  private DurableFile() {}

  /** {@link #replace}, unless the file holds exactly {@code bytes} already; whether it wrote. */
  public static boolean replaceIfChanged(Path target, byte[] bytes) throws IOException {
    if (Files.exists(target) && java.util.Arrays.equals(Files.readAllBytes(target), bytes)) {
      return false;
    }
    replace(target, bytes);
    return true;
  }

  public static void replace(Path target, byte[] bytes) throws IOException {
    var temp = target.resolveSibling(target.getFileName() + ".tmp");
    TempFile.write(temp, bytes, true);
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    var dir = target.toAbsolutePath().getParent();
    if (dir != null) {
      try (var ch = FileChannel.open(dir, StandardOpenOption.READ)) {
        ch.force(true);
      } catch (IOException ignored) {
        // Some file systems cannot sync a directory; the rename is still atomic there.
      }
    }
  }
}
