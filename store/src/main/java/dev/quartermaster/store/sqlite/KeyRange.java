package dev.quartermaster.store.sqlite;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;

/**
 * A key prefix as the SQL condition {@code key >= start AND key < end}, which uses the key index.
 */
record KeyRange(byte[] start, Optional<byte[]> end) {
  static KeyRange of(String prefix) {
    byte[] start = Keys.encode(prefix);
    return new KeyRange(start, Keys.prefixEnd(start));
  }

  String condition(String column) {
    return end.isPresent() ? column + " >= ? AND " + column + " < ?" : column + " >= ?";
  }

  /** Binds the parameters of {@link #condition}; returns the next free parameter index. */
  int bind(PreparedStatement ps, int index) throws SQLException {
    ps.setBytes(index++, start);
    if (end.isPresent()) {
      ps.setBytes(index++, end.get());
    }
    return index;
  }
}
