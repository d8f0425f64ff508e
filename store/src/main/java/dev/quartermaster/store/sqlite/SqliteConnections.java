package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.sqlite.nativelib.SqliteNativeLibrary;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;

/** Every SQLite connection of the store opens here, after the native library is in place. */
final class SqliteConnections {
  private SqliteConnections() {}

  static Connection open(SQLiteConfig config, Path file) throws SQLException {
    SqliteNativeLibrary.prepare();
    return config.createConnection("jdbc:sqlite:" + file);
  }
}
