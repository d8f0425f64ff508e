package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.CorruptValueException;
import dev.quartermaster.store.StoreException;
import java.nio.file.Path;
import java.sql.SQLException;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * Turns SQLite failures into {@link StoreException}s that say which file and what was being done.
 */
final class Errors {
  private Errors() {}

  static StoreException wrap(Path file, String action, SQLException e) {
    return new StoreException("store " + file + ": " + action + " failed: " + explain(e), e);
  }

  static StoreException closed(Path file) {
    return new StoreException("store " + file + " is closed");
  }

  /**
   * A row that does not match its checksum: which key, which revision, which file, and what to do.
   */
  static CorruptValueException corrupt(Path file, LogRow.Checked row) {
    return new CorruptValueException(
        row.row().key(),
        row.row().revision(),
        "store "
            + file
            + ": the value of key "
            + row.row().key()
            + " at revision "
            + row.row().revision()
            + " is corrupt: "
            + mismatch(row)
            + ". The file was changed outside Quartermaster, or the disk returned other bytes than were written;"
            + " refusing to serve it. Restore "
            + file
            + " from a backup (qm server --check lists every corrupt value)");
  }

  /** "CRC32C 0x… computed, 0x… stored with it", as --check lists it too. */
  static String mismatch(LogRow.Checked row) {
    return String.format(
        "its CRC32C is 0x%08x, but 0x%08x was stored with it", row.computed(), row.stored());
  }

  /** SQLite's messages for the common cases of a wrong file are cryptic; say what they mean. */
  private static String explain(SQLException e) {
    if (e instanceof SQLiteException s) {
      SQLiteErrorCode code = s.getResultCode();
      if (code == SQLiteErrorCode.SQLITE_NOTADB) {
        return "the file is not a SQLite database (" + e.getMessage() + ")";
      }
      if (code == SQLiteErrorCode.SQLITE_CORRUPT) {
        return "the database file is corrupt ("
            + e.getMessage()
            + "); refusing to serve it, restore the file from a backup";
      }
    }
    return e.getMessage();
  }
}
