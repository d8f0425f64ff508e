package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.StoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The on-disk layout, and the checks that refuse a file that is not ours.
 *
 * <pre>
 * log  (id INTEGER PRIMARY KEY,   -- append order; orders the rows of one revision in op order
 *       revision,                 -- the transaction's revision, shared by all its rows
 *       key BLOB, deleted, create_revision, version, prev_revision, value BLOB)
 *       UNIQUE (key, revision)    -- a transaction touches a key at most once; serves reads
 *       INDEX (revision)          -- serves watch replay and compaction
 * meta (name PRIMARY KEY, value)  -- 'format', 'revision' (a floor, see below), 'compacted',
 *                                 -- 'identity' (random; repeated in the marker, see StoreMarker)
 * </pre>
 *
 * The current revision is not written at each commit: it is the newest revision in the log, or the
 * compacted revision if compaction removed everything newer (only a deleted key's tombstone can be
 * the newest row, and compaction removes tombstones only up to the revision it records), or the
 * 'revision' row if that is higher. Every revision used has a row in the log until compacted, since a
 * transaction that changes nothing takes none. Format 1 wrote the 'revision' row at every commit: a
 * fourth page per commit (beside the log row and its two index entries), 8 % of a single caller's
 * commits. A format-1 store is upgraded when opened ({@link #upgrade}); its last 'revision' stays as
 * the floor. A format-1 build refuses a format-2 store, since it would take that floor for the
 * current revision and hand out revisions again.
 *
 * The file is marked with SQLite's {@code application_id} so a foreign database is recognised
 * before anything is written to it.
 */
final class Schema {
  /** "QMST" in ASCII. */
  static final int APPLICATION_ID = 0x514D5354;

  static final long FORMAT = 2;
  /** The format before the revision was derived; {@link #upgrade} turns it into {@link #FORMAT}. */
  static final long FORMAT_WRITING_REVISION = 1;

  private Schema() {}

  /** The revisions recorded in meta. */
  record Meta(long revision, long compacted) {}

  /**
   * Checks that the file is a store of our format, or a brand-new empty database; reads only.
   *
   * @return whether the database is empty and needs {@link #create}
   */
  static boolean identify(Connection c, Path file) throws SQLException {
    int applicationId;
    int objects;
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("PRAGMA application_id")) {
        applicationId = rs.next() ? rs.getInt(1) : 0;
      }
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master")) {
        objects = rs.next() ? rs.getInt(1) : 0;
      }
    }
    if (applicationId == APPLICATION_ID) {
      return false;
    }
    if (applicationId == 0 && objects == 0) {
      return true;
    }
    throw new StoreException("store " + file + ": not a Quartermaster store (SQLite application_id "
        + String.format("0x%08x", applicationId) + ", " + objects + " schema objects); refusing to use it");
  }

  static void create(Connection c, long identity) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      s.execute("""
          CREATE TABLE log (
            id INTEGER PRIMARY KEY,
            revision INTEGER NOT NULL,
            key BLOB NOT NULL,
            deleted INTEGER NOT NULL,
            create_revision INTEGER NOT NULL,
            version INTEGER NOT NULL,
            prev_revision INTEGER NOT NULL,
            value BLOB NOT NULL)""");
      s.execute("CREATE UNIQUE INDEX log_key_revision ON log (key, revision)");
      s.execute("CREATE INDEX log_revision ON log (revision)");
      s.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID");
      s.execute("INSERT INTO meta (name, value) VALUES ('format', " + FORMAT + "), ('revision', 0), ('compacted', 0), ('identity', " + identity + ")");
      s.execute("PRAGMA application_id = " + APPLICATION_ID);
      s.execute("COMMIT");
    }
  }

  /** The store's identity, or null for a store created before identities were recorded. */
  static Long identity(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT value FROM meta WHERE name = 'identity'")) {
      return rs.next() ? rs.getLong(1) : null;
    }
  }

  /** Records an identity in a store that has none yet. */
  static void recordIdentity(Connection c, long identity) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("INSERT INTO meta (name, value) VALUES ('identity', " + identity + ")");
    }
  }

  /** Upgrades a format-1 store to format 2 (nothing else changes); returns whether it did. */
  static boolean upgrade(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      return s.executeUpdate("UPDATE meta SET value = " + FORMAT + " WHERE name = 'format' AND value = "
          + FORMAT_WRITING_REVISION) == 1;
    }
  }

  /** Reads meta inside the caller's transaction, refusing a format this build does not know. */
  static Meta readMeta(Connection c, Path file) throws SQLException {
    var opened = new ArrayList<PreparedStatement>();
    try {
      return readMeta(sql -> {
        var statement = c.prepareStatement(sql);
        opened.add(statement);
        return statement;
      }, file);
    } finally {
      for (var statement : opened) {
        statement.close();
      }
    }
  }

  /**
   * As {@link #readMeta(Connection, Path)}, on a reader's kept statements: every range and watch
   * replay reads meta, and parsing its two queries each time cost more than running them.
   */
  static Meta readMeta(ReaderConnection c, Path file) throws SQLException {
    return readMeta(c::prepared, file);
  }

  /** Prepares a statement for a query; the caller of {@code readMeta} decides who closes it. */
  private interface Statements {
    PreparedStatement prepare(String sql) throws SQLException;
  }

  private static Meta readMeta(Statements statements, Path file) throws SQLException {
    Map<String, Long> meta = new HashMap<>();
    try (ResultSet rs = statements.prepare("SELECT name, value FROM meta").executeQuery()) {
      while (rs.next()) {
        meta.put(rs.getString(1), rs.getLong(2));
      }
    }
    Long format = meta.get("format");
    if (format == null || format != FORMAT) {
      throw new StoreException("store " + file + ": unsupported store format "
          + (format == null ? "(missing)" : format) + "; this build reads format " + FORMAT);
    }
    Long floor = meta.get("revision");
    Long compacted = meta.get("compacted");
    if (floor == null || compacted == null) {
      throw new StoreException("store " + file + ": meta table is damaged: " + meta);
    }
    long newest;
    try (ResultSet rs = statements.prepare("SELECT MAX(revision) FROM log").executeQuery()) {
      newest = rs.next() ? rs.getLong(1) : 0; // NULL (an empty log) reads as 0
    }
    return new Meta(Math.max(Math.max(floor, newest), compacted), compacted);
  }
}
