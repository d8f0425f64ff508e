package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.StoreException;
import java.nio.file.Path;
import java.sql.SQLException;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** Turns SQLite failures into {@link StoreException}s that say which file and what was being done. */
final class Errors {
  private Errors() {}

  static StoreException wrap(Path file, String action, SQLException e) {
    return new StoreException("store " + file + ": " + action + " failed: " + explain(e), e);
  }

  static StoreException closed(Path file) {
    return new StoreException("store " + file + " is closed");
  }

  /** SQLite's messages for the common cases of a wrong file are cryptic; say what they mean. */
  private static String explain(SQLException e) {
    if (e instanceof SQLiteException s) {
      SQLiteErrorCode code = s.getResultCode();
      if (code == SQLiteErrorCode.SQLITE_NOTADB) {
        return "the file is not a SQLite database (" + e.getMessage() + ")";
      }
      if (code == SQLiteErrorCode.SQLITE_CORRUPT) {
        return "the database file is corrupt (" + e.getMessage() + "); refusing to serve it, restore the file from a backup";
      }
    }
    return e.getMessage();
  }
}
