package dev.quartermaster.store.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * One pooled read-only connection and the statements prepared on it, kept for every read that
 * borrows it: a get was three SQL parses (BEGIN, the query, ROLLBACK) before it read a row. Used by
 * one read at a time, as the pool lends it.
 */
final class ReaderConnection implements AutoCloseable {
  /**
   * Statement texts are few (each query's shape, not its values): more is a query embedding values,
   * refused.
   */
  private static final int MAX_KEPT = 32;

  private final Connection connection;
  private final Map<String, PreparedStatement> kept = new HashMap<>();

  ReaderConnection(Connection connection) {
    this.connection = connection;
  }

  Connection connection() {
    return connection;
  }

  /** {@code sql} prepared on this connection; never close it, the connection does. */
  PreparedStatement prepared(String sql) throws SQLException {
    var statement = kept.get(sql);
    if (statement == null) {
      if (kept.size() >= MAX_KEPT) {
        throw new IllegalStateException(
            "more than " + MAX_KEPT + " statement texts on a reader: a query embeds values");
      }
      statement = connection.prepareStatement(sql);
      kept.put(sql, statement);
    }
    return statement;
  }

  @Override
  public void close() throws SQLException {
    for (var statement : kept.values()) {
      statement.close();
    }
    kept.clear();
    connection.close();
  }
}
