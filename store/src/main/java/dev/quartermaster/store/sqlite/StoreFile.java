package dev.quartermaster.store.sqlite;

import dev.quartermaster.core.files.OwnerOnly;
import dev.quartermaster.store.StoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/** Opens the writer connection and brings the file into service: checked first, then configured. */
final class StoreFile {
  private StoreFile() {}

  static Connection openWriter(Path file) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(SqliteStore.BUSY_TIMEOUT_MS);
    // No pragmas here: a foreign file must be recognised before anything is written to it.
    var c = config.createConnection("jdbc:sqlite:" + file);
    ownerOnly(file);
    return c;
  }

  /**
   * store.db, its -wal and -shm: 0600. SQLite creates the file at open with the umask's mode (0644)
   * and gives the WAL and shared-memory files the database file's mode, so tightening the database
   * right after open, before WAL mode is turned on, makes the others 0600 as they are created; ones
   * an older version left are tightened here too.
   */
  private static void ownerOnly(Path file) {
    for (var f : java.util.List.of(file, Path.of(file + "-wal"), Path.of(file + "-shm"), Path.of(file + "-journal"))) {
      try {
        OwnerOnly.file(f).ifPresent(t -> LoggerFactory.getLogger(StoreFile.class)
            .warn("store file was open to other users; tightened {}", t));
      } catch (java.io.IOException e) {
        throw new StoreException("store " + f + ": cannot make it owner-only: " + e.getMessage());
      }
    }
  }

  /** Checks the file is ours (or empty), turns on WAL and full sync, creates the schema if new. */
  static Schema.Meta prepare(Connection c, Path file) throws SQLException {
    boolean fresh = Schema.identify(c, file);
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("PRAGMA journal_mode = WAL")) {
        String mode = rs.next() ? rs.getString(1) : "unknown";
        if (!"wal".equalsIgnoreCase(mode)) {
          throw new StoreException("store " + file + ": cannot use WAL mode (journal mode is " + mode + ")");
        }
      }
      // With WAL, FULL syncs the log on every commit: an acknowledged write survives power loss.
      s.execute("PRAGMA synchronous = FULL");
      if (fresh) {
        Schema.create(c);
      }
      s.execute("BEGIN");
      try {
        return Schema.readMeta(c, file);
      } finally {
        s.execute("ROLLBACK");
      }
    }
  }

  static void closeQuietly(Connection c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (SQLException ignored) {
      // Everything acknowledged is committed already; closing loses nothing.
    }
  }
}
