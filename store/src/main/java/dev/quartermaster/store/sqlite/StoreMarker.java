package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

/**
 * The side file {@code <db>.id}, holding the identity of the store that lives in {@code <db>}. It
 * outlives the database file on purpose: when the database is deleted or emptied (a bad restore,
 * a truncating copy, a stray {@code rm}), the marker still says a store existed, so opening refuses
 * to start a new empty cluster in its place instead of silently forgetting every object.
 */
final class StoreMarker {
  private static final String HEADER = "quartermaster-store ";

  private StoreMarker() {}

  static Path of(Path db) {
    return db.resolveSibling(db.getFileName() + ".id");
  }

  /** The identity the marker records, or empty when there is no marker. */
  static OptionalLong read(Path db) {
    Path marker = of(db);
    String text;
    try {
      text = Files.readString(marker, StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    } catch (IOException e) {
      throw new StoreException("store " + db + ": cannot read its marker " + marker + ": " + e.getMessage(), e);
    }
    // A garbled marker is itself damage: guessing would defeat the reason it exists.
    if (!text.startsWith(HEADER)) {
      throw new StoreException("store " + db + ": marker " + marker + " is damaged (expected '" + HEADER
          + "<id>', found " + text.length() + " characters); restore it, or delete it deliberately");
    }
    try {
      return OptionalLong.of(Long.parseUnsignedLong(text.substring(HEADER.length()).strip(), 16));
    } catch (NumberFormatException e) {
      throw new StoreException("store " + db + ": marker " + marker + " is damaged (" + e.getMessage()
          + "); restore it, or delete it deliberately");
    }
  }

  /** Writes the marker durably: temp file, fsync, atomic rename, fsync of the directory. */
  static void write(Path db, long identity) {
    Path marker = of(db);
    Path temp = marker.resolveSibling(marker.getFileName() + ".tmp");
    byte[] bytes = (HEADER + format(identity) + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      try (FileChannel ch = FileChannel.open(temp, java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING), dev.quartermaster.core.files.OwnerOnly.fileAttribute(temp))) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          ch.write(buffer);
        }
        ch.force(true);
      }
      Files.move(temp, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      syncDirectory(marker.getParent());
    } catch (IOException e) {
      throw new StoreException("store " + db + ": cannot write its marker " + marker + ": " + e.getMessage(), e);
    }
  }

  static String format(long identity) {
    return String.format("%016x", identity);
  }

  private static void syncDirectory(Path dir) {
    if (dir == null) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException ignored) {
      // Some file systems cannot sync a directory; the rename is still atomic there.
    }
  }
}
