package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.sqlite.SQLiteConfig;

/**
 * SQLite's own checks of the file. The quick one runs on every open, so a damaged page is named
 * before the store serves (or writes over) it; the full one backs {@code qm server --check}.
 */
final class IntegrityCheck {
  /** How many of SQLite's findings a refusal quotes; the full list is what --check is for. */
  static final int QUOTED = 5;

  private IntegrityCheck() {}

  /** Runs {@code PRAGMA quick_check} and throws, naming the file and the first findings, on damage. */
  static void quick(Connection c, Path file) throws SQLException {
    List<String> problems = run(c, "quick_check");
    if (!problems.isEmpty()) {
      throw new StoreException("store " + file + " is damaged: SQLite's quick_check found " + problems.size()
          + " problem(s), first: " + String.join("; ", problems.subList(0, Math.min(QUOTED, problems.size())))
          + ". Refusing to serve it; restore the file from a backup");
    }
  }

  /** Runs {@code PRAGMA integrity_check} read-only; an empty list means the file is sound. */
  static List<String> full(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new StoreException("store " + file + " does not exist");
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(SqliteStore.BUSY_TIMEOUT_MS);
    try (Connection c = SqliteConnections.open(config, file)) {
      if (Schema.identify(c, file)) {
        // Sound as SQLite goes, but a store file with no store in it is what a truncation leaves.
        return List.of("the file holds no store (it is empty or has no tables): nothing to serve");
      }
      return run(c, "integrity_check");
    } catch (SQLException e) {
      // A file too damaged for the check to run at all is damage too, and says so.
      return List.of(Errors.wrap(file, "integrity check", e).getMessage());
    }
  }

  private static List<String> run(Connection c, String pragma) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA " + pragma)) {
      while (rs.next()) {
        lines.add(rs.getString(1));
      }
    }
    return lines.equals(List.of("ok")) ? List.of() : lines;
  }
}
