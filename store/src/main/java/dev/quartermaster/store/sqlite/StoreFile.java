package dev.quartermaster.store.sqlite;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.core.files.OwnerOnly;
import dev.quartermaster.store.StoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/** Opens the writer connection and brings the file into service: checked first, then configured. */
@OutsideEnv("a new store's identity must not repeat across machines")
final class StoreFile {
  private static final SecureRandom IDENTITIES = new SecureRandom();

  private StoreFile() {}

  static Connection openWriter(Path file) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(SqliteStore.BUSY_TIMEOUT_MS);
    // Else the driver matches every INSERT's text and runs a second query for its row id: a sixth
    // of
    // the writer's time on a single-object commit, for keys nobody asks for.
    config.setGetGeneratedKeys(false);
    // A new store is created 0600 here, since SQLite would create it with the umask's mode (an
    // empty
    // file is a new database to SQLite). Whether a store is expected here was decided before.
    if (!Files.exists(file)) {
      try {
        OwnerOnly.createFile(file);
      } catch (IOException e) {
        throw new StoreException("store " + file + ": cannot create it: " + e.getMessage());
      }
    }
    // No pragmas here: a foreign file must be recognised before anything is written to it.
    var c = SqliteConnections.open(config, file);
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
    for (var f :
        java.util.List.of(
            file, Path.of(file + "-wal"), Path.of(file + "-shm"), Path.of(file + "-journal"))) {
      try {
        OwnerOnly.file(f)
            .ifPresent(
                t ->
                    LoggerFactory.getLogger(StoreFile.class)
                        .warn("store file was open to other users; tightened {}", t));
      } catch (java.io.IOException e) {
        throw new StoreException("store " + f + ": cannot make it owner-only: " + e.getMessage());
      }
    }
  }

  /**
   * Checks the file is ours (or empty) and sound, turns on WAL and full sync, creates the schema if
   * new, and ties the file to its marker. A new store is refused where the marker or {@code
   * evidence} shows one existed; an existing one is refused when SQLite's quick check finds damage.
   */
  static Schema.Meta prepare(Connection c, Path file, List<Path> evidence) throws SQLException {
    boolean fresh = Schema.identify(c, file);
    OptionalLong marked = StoreMarker.read(file);
    if (fresh) {
      ExistingStore.refuseNewIfExisted(file, marked, evidence);
    } else {
      // Before anything is written: a damaged file is named, never served or written over.
      IntegrityCheck.quick(c, file);
    }
    try (Statement s = c.createStatement()) {
      if (fresh) {
        // Only possible before the first table: pages freed by compaction can then be given back to
        // the file system (Writer runs incremental_vacuum after each compaction), so store.db
        // shrinks.
        s.execute("PRAGMA auto_vacuum = INCREMENTAL");
      }
      try (ResultSet rs = s.executeQuery("PRAGMA journal_mode = WAL")) {
        String mode = rs.next() ? rs.getString(1) : "unknown";
        if (!"wal".equalsIgnoreCase(mode)) {
          throw new StoreException(
              "store " + file + ": cannot use WAL mode (journal mode is " + mode + ")");
        }
      }
      // With WAL, FULL syncs the log on every commit: an acknowledged write survives power loss.
      s.execute("PRAGMA synchronous = FULL");
      if (fresh) {
        Schema.create(c, IDENTITIES.nextLong());
      }
      bindMarker(c, file, marked);
      if (!fresh) {
        Schema.upgrade(c).ifPresent(upgrade -> logUpgrade(file, upgrade));
      }
      s.execute("BEGIN");
      try {
        return Schema.readMeta(c, file);
      } finally {
        s.execute("ROLLBACK");
      }
    }
  }

  /**
   * Loudly, as it changes the file for good: a build before this one no longer opens it, and the
   * checksums vouch only for the bytes as they were at the upgrade.
   */
  private static void logUpgrade(Path file, Schema.Upgrade upgrade) {
    LoggerFactory.getLogger(StoreFile.class)
        .warn(
            "store {}: upgraded from format {} to format {}: computed a CRC32C"
                + " checksum for each of its {} log rows from their bytes as they are now; from here on every read, watch"
                + " replay, compaction and `qm server --check` verifies them (a value damaged before this upgrade is not"
                + " detected). Builds before this one cannot open the store any more",
            file,
            upgrade.from(),
            Schema.FORMAT,
            upgrade.checksummed());
  }

  /**
   * Makes the marker and the file agree: writes the marker for a store that has none, and refuses a
   * file that is another store's (a restore from the wrong place, or two data dirs mixed up).
   */
  private static void bindMarker(Connection c, Path file, OptionalLong marked) throws SQLException {
    Long identity = Schema.identity(c);
    if (identity == null) {
      identity = IDENTITIES.nextLong();
      Schema.recordIdentity(c, identity);
    }
    if (marked.isEmpty()) {
      StoreMarker.write(file, identity);
    } else if (marked.getAsLong() != identity) {
      throw new StoreException(
          "store "
              + file
              + " is store "
              + StoreMarker.format(identity)
              + ", but its marker "
              + StoreMarker.of(file)
              + " says store "
              + StoreMarker.format(marked.getAsLong())
              + " lives here. Refusing to serve another store's file; restore the right file, or delete the marker"
              + " deliberately to adopt this one");
    }
  }

  /**
   * Removes the empty file that opening created when the open was refused, so a refusal leaves the
   * data dir as it found it (a left-over empty store.db would look like a store to the next look).
   */
  static void removeIfCreated(Path file, boolean existed) {
    if (existed) {
      return;
    }
    try {
      if (Files.exists(file) && Files.size(file) == 0) {
        Files.delete(file);
      }
    } catch (IOException ignored) {
      // Best effort: the refusal that brought us here is what the caller needs to see.
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
