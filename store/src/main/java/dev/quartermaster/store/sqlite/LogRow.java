package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.CorruptValueException;
import dev.quartermaster.store.KeyValue;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One row of the log table: one key's change at one revision.
 *
 * @param deleted whether this row is a tombstone (then createRevision and version are 0 and the
 *     value is empty, which is what etcd reports for a deleted key)
 * @param prevRevision the mod revision of the live value this row replaced, 0 if the key did not
 *     exist; it lets a watch find the previous value without scanning history
 */
record LogRow(
    long revision,
    String key,
    boolean deleted,
    long createRevision,
    long version,
    long prevRevision,
    byte[] value) {

  /**
   * A row as the file holds it, with the checksum stored beside it and the one its bytes give now.
   *
   * @param id the row's position in the log, or 0 where the query did not select it
   */
  record Checked(long id, LogRow row, long stored, long computed) {
    boolean intact() {
      return stored == computed;
    }

    /** Refuses the row, naming its key, revision and the store file, unless it is intact. */
    LogRow verified(Path file) {
      if (!intact()) {
        throw Errors.corrupt(file, this);
      }
      return row;
    }
  }

  /** How many {@link #columns} there are. */
  static final int COLUMNS = 8;

  /** The columns {@link #read} expects, in order, for a table aliased {@code alias}. */
  static String columns(String alias) {
    return String.join(
        ", ",
        alias + ".revision",
        alias + ".key",
        alias + ".deleted",
        alias + ".create_revision",
        alias + ".version",
        alias + ".prev_revision",
        alias + ".value",
        alias + ".checksum");
  }

  /**
   * Reads the row whose {@link #columns} start at column {@code first}, verified: a row that does
   * not match its checksum is a {@link CorruptValueException} naming its key, revision and {@code
   * file}, never a row handed on.
   */
  static LogRow read(ResultSet rs, int first, Path file) throws SQLException {
    return readChecked(rs, first, 0).verified(file);
  }

  /**
   * Reads the row whose {@link #columns} start at column {@code first}, and checks it without
   * judging.
   */
  static Checked readChecked(ResultSet rs, int first, long id) throws SQLException {
    byte[] key = rs.getBytes(first + 1);
    byte[] value = rs.getBytes(first + 6);
    key = key == null ? new byte[0] : key;
    LogRow row =
        new LogRow(
            rs.getLong(first),
            Keys.decode(key),
            rs.getInt(first + 2) != 0,
            rs.getLong(first + 3),
            rs.getLong(first + 4),
            rs.getLong(first + 5),
            value == null ? new byte[0] : value);
    return new Checked(id, row, rs.getLong(first + 7), RowChecksum.of(row, key));
  }

  /**
   * As a watch or a read sees it; for a tombstone, the key with the delete's revision. Shares the
   * row's value, which no one writes to: a row read from the database has a fresh array, and the
   * writer builds its rows with a copy of the put's.
   */
  KeyValue kv() {
    return KeyValue.owning(key, value, createRevision, revision, version);
  }
}
