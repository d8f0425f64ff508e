package dev.quartermaster.store.sqlite;

import dev.quartermaster.core.files.DurableFile;
import dev.quartermaster.store.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The side file {@code <db>.id}, holding the identity of the store that lives in {@code <db>}. It
 * outlives the database file on purpose: when the database is deleted or emptied (a bad restore, a
 * truncating copy, a stray {@code rm}), the marker still says a store existed, so opening refuses
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
      throw new StoreException(
          "store " + db + ": cannot read its marker " + marker + ": " + e.getMessage(), e);
    }
    // A garbled marker is itself damage: guessing would defeat the reason it exists.
    if (!text.startsWith(HEADER)) {
      throw new StoreException(
          "store "
              + db
              + ": marker "
              + marker
              + " is damaged (expected '"
              + HEADER
              + "<id>', found "
              + text.length()
              + " characters); restore it, or delete it deliberately");
    }
    try {
      return OptionalLong.of(Long.parseUnsignedLong(text.substring(HEADER.length()).strip(), 16));
    } catch (NumberFormatException e) {
      throw new StoreException(
          "store "
              + db
              + ": marker "
              + marker
              + " is damaged ("
              + e.getMessage()
              + "); restore it, or delete it deliberately");
    }
  }

  /** Writes the marker durably (temp file, fsync, atomic rename, fsync of the directory). */
  static void write(Path db, long identity) {
    Path marker = of(db);
    try {
      DurableFile.replace(
          marker, (HEADER + format(identity) + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new StoreException(
          "store " + db + ": cannot write its marker " + marker + ": " + e.getMessage(), e);
    }
  }

  static String format(long identity) {
    return String.format("%016x", identity);
  }
}
