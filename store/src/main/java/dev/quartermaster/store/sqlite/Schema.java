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
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The on-disk layout, and the checks that refuse a file that is not ours.
 *
 * <pre>
 * log  (id INTEGER PRIMARY KEY,   -- append order; orders the rows of one revision in op order
 *       revision,                 -- the transaction's revision, shared by all its rows
 *       key BLOB, deleted, create_revision, version, prev_revision, value BLOB,
 *       checksum)                 -- CRC32C of the row, verified on every read (RowChecksum)
 *       UNIQUE (key, revision)    -- a transaction touches a key at most once; serves reads
 *       INDEX (revision)          -- serves watch replay and compaction
 * meta (name PRIMARY KEY, value)  -- 'format', 'revision' (a floor, see below), 'compacted',
 *                                 -- 'identity' (random; repeated in the marker, see StoreMarker)
 * </pre>
 *
 * The current revision is not written at each commit: it is the newest revision in the log, or the
 * compacted revision if compaction removed everything newer (only a deleted key's tombstone can be
 * the newest row, and compaction removes tombstones only up to the revision it records), or the
 * 'revision' row if that is higher. Every revision used has a row in the log until compacted, since
 * a transaction that changes nothing takes none. Format 1 wrote the 'revision' row at every commit:
 * a fourth page per commit (beside the log row and its two index entries), 8 % of a single caller's
 * commits. A format-1 store is upgraded when opened ({@link #upgrade}); its last 'revision' stays
 * as the floor. A format-1 build refuses a format-2 store, since it would take that floor for the
 * current revision and hand out revisions again.
 *
 * <p>Format 3 added the {@code checksum} column. A format-2 store gets it when opened, filled from
 * its rows as they read then, in one transaction ({@link #upgrade}); a format-2 build refuses a
 * format-3 store, so rows written without a checksum never reach it.
 *
 * <p>The file is marked with SQLite's {@code application_id} so a foreign database is recognised
 * before anything is written to it.
 */
final class Schema {
  /** "QMST" in ASCII. */
  static final int APPLICATION_ID = 0x514D5354;

  static final long FORMAT = 3;

  /** The format before rows had checksums; {@link #upgrade} turns it into {@link #FORMAT}. */
  static final long FORMAT_WITHOUT_CHECKSUMS = 2;

  /**
   * The format before the revision was derived; {@link #upgrade} turns it into format 2, then 3.
   */
  static final long FORMAT_WRITING_REVISION = 1;

  /**
   * Rows checksummed per statement while upgrading, so a large store is not read into memory at
   * once.
   */
  private static final int UPGRADE_PAGE = 1_000;

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
    throw new StoreException(
        "store "
            + file
            + ": not a Quartermaster store (SQLite application_id "
            + String.format("0x%08x", applicationId)
            + ", "
            + objects
            + " schema objects); refusing to use it");
  }

  static void create(Connection c, long identity) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      s.execute(
          """
          CREATE TABLE log (
            id INTEGER PRIMARY KEY,
            revision INTEGER NOT NULL,
            key BLOB NOT NULL,
            deleted INTEGER NOT NULL,
            create_revision INTEGER NOT NULL,
            version INTEGER NOT NULL,
            prev_revision INTEGER NOT NULL,
            value BLOB NOT NULL,
            checksum INTEGER NOT NULL)""");
      s.execute("CREATE UNIQUE INDEX log_key_revision ON log (key, revision)");
      s.execute("CREATE INDEX log_revision ON log (revision)");
      s.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID");
      s.execute(
          "INSERT INTO meta (name, value) VALUES ('format', "
              + FORMAT
              + "), ('revision', 0), ('compacted', 0), ('identity', "
              + identity
              + ")");
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

  /**
   * What {@link #upgrade} did to an older store.
   *
   * @param from the format the store had
   * @param checksummed how many log rows were given a checksum
   */
  record Upgrade(long from, long checksummed) {}

  /**
   * Brings a format-1 or format-2 store to {@link #FORMAT}, in one transaction, so a crash leaves
   * it as it was; returns what it did, or empty when the store is current (or of a format this
   * build refuses, which {@link #readMeta} then names).
   */
  static Optional<Upgrade> upgrade(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      try {
        long from;
        try (ResultSet rs = s.executeQuery("SELECT value FROM meta WHERE name = 'format'")) {
          from = rs.next() ? rs.getLong(1) : FORMAT;
        }
        if (from != FORMAT_WRITING_REVISION && from != FORMAT_WITHOUT_CHECKSUMS) {
          s.execute("ROLLBACK");
          return Optional.empty();
        }
        // Format 1 to 2 changed only what the revision row means; 2 to 3 adds the checksums. The
        // default never matches a CRC32C, so a row this fill missed would fail loudly, not pass.
        s.execute("ALTER TABLE log ADD COLUMN checksum INTEGER NOT NULL DEFAULT -1");
        long checksummed = fillChecksums(c);
        s.executeUpdate("UPDATE meta SET value = " + FORMAT + " WHERE name = 'format'");
        s.execute("COMMIT");
        return Optional.of(new Upgrade(from, checksummed));
      } catch (SQLException | RuntimeException e) {
        try {
          s.execute("ROLLBACK");
        } catch (SQLException ignored) {
          // SQLite may have rolled back already; the failure that brought us here is what matters.
        }
        throw e;
      }
    }
  }

  /** Writes each row's checksum from its bytes as they are now, a page of rows at a time, by id. */
  private static long fillChecksums(Connection c) throws SQLException {
    long filled = 0;
    long after = 0;
    try (PreparedStatement page =
            c.prepareStatement(
                "SELECT l.id, "
                    + LogRow.columns("l")
                    + " FROM log AS l WHERE l.id > ? ORDER BY l.id LIMIT "
                    + UPGRADE_PAGE);
        PreparedStatement set = c.prepareStatement("UPDATE log SET checksum = ? WHERE id = ?")) {
      while (true) {
        List<LogRow.Checked> rows = new ArrayList<>(UPGRADE_PAGE);
        page.setLong(1, after);
        try (ResultSet rs = page.executeQuery()) {
          while (rs.next()) {
            rows.add(LogRow.readChecked(rs, 2, rs.getLong(1)));
          }
        }
        if (rows.isEmpty()) {
          return filled;
        }
        for (LogRow.Checked row : rows) {
          set.setLong(1, row.computed());
          set.setLong(2, row.id());
          set.executeUpdate();
          after = row.id();
        }
        filled += rows.size();
      }
    }
  }

  /** Reads meta inside the caller's transaction, refusing a format this build does not know. */
  static Meta readMeta(Connection c, Path file) throws SQLException {
    var opened = new ArrayList<PreparedStatement>();
    try {
      return readMeta(
          sql -> {
            var statement = c.prepareStatement(sql);
            opened.add(statement);
            return statement;
          },
          file);
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
      throw new StoreException(
          "store "
              + file
              + ": unsupported store format "
              + (format == null ? "(missing)" : format)
              + "; this build reads format "
              + FORMAT);
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
