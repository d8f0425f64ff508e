package dev.quartermaster.core.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * The first half of replacing a file atomically, shared by {@link DurableFile}, {@link
 * BootScopedFile} and the agent's ledger: {@code bytes} written to a temp file beside the target,
 * owner-only from creation (one a crash or an older version left is tightened first), and forced to
 * the disk when the replace must survive a power loss. The caller renames it over the target.
 */
public final class TempFile {
  private TempFile() {}

  public static void write(Path temp, byte[] bytes, boolean force) throws IOException {
    OwnerOnly.file(temp);
    try (var ch =
        FileChannel.open(
            temp,
            Set.of(
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE),
            OwnerOnly.fileAttribute(temp))) {
      var buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        ch.write(buffer);
      }
      if (force) {
        ch.force(true);
      }
    }
  }
}
