package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.KeyValue;
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

  /** The columns {@link #read} expects, in order, for a table aliased {@code alias}. */
  static String columns(String alias) {
    return String.join(", ", alias + ".revision", alias + ".key", alias + ".deleted",
        alias + ".create_revision", alias + ".version", alias + ".prev_revision", alias + ".value");
  }

  static LogRow read(ResultSet rs, int first) throws SQLException {
    byte[] value = rs.getBytes(first + 6);
    return new LogRow(
        rs.getLong(first),
        Keys.decode(rs.getBytes(first + 1)),
        rs.getInt(first + 2) != 0,
        rs.getLong(first + 3),
        rs.getLong(first + 4),
        rs.getLong(first + 5),
        value == null ? new byte[0] : value);
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
