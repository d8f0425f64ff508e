package dev.quartermaster.bench;

import dev.quartermaster.store.sqlite.nativelib.SqliteNativeLibrary;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;

/** The yardstick: how fast this disk commits one SQLite row at a time with full durability. */
final class RawSqlite {
  private RawSqlite() {}

  static double commitsPerSecond(Path file, int commits) throws SQLException {
    SqliteNativeLibrary.prepare(); // the store's kept copy, not one more in /tmp
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      try (var s = c.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=FULL");
        s.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v BLOB)");
      }
      c.setAutoCommit(true);
      var value = new byte[256];
      try (var insert = c.prepareStatement("INSERT INTO t (v) VALUES (?)")) {
        for (int i = 0; i < 100; i++) { // warm-up
          insert.setBytes(1, value);
          insert.executeUpdate();
        }
        var watch = Stopwatch.start();
        for (int i = 0; i < commits; i++) {
          insert.setBytes(1, value);
          insert.executeUpdate();
        }
        return commits / watch.seconds();
      }
    }
  }
}
