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
 * Checks of the file. SQLite's quick check runs on every open, so a damaged page is named before
 * the store serves (or writes over) it. {@code qm server --check} runs SQLite's full check and then
 * verifies every log row against its checksum, which catches what SQLite cannot see: a changed byte
 * inside a value, where the page is still well formed.
 */
final class IntegrityCheck {
  /** How many of SQLite's findings a refusal quotes; the full list is what --check is for. */
  static final int QUOTED = 5;

  private IntegrityCheck() {}

  /**
   * Runs {@code PRAGMA quick_check} and throws, naming the file and the first findings, on damage.
   */
  static void quick(Connection c, Path file) throws SQLException {
    List<String> problems = run(c, "quick_check");
    if (!problems.isEmpty()) {
      throw new StoreException(
          "store "
              + file
              + " is damaged: SQLite's quick_check found "
              + problems.size()
              + " problem(s), first: "
              + String.join("; ", problems.subList(0, Math.min(QUOTED, problems.size())))
              + ". Refusing to serve it; restore the file from a backup");
    }
  }

  /**
   * Runs {@code PRAGMA integrity_check} and verifies every row's checksum, read-only; the report
   * lists each row that fails, by key and revision.
   */
  static CheckReport full(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new StoreException("store " + file + " does not exist");
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(SqliteStore.BUSY_TIMEOUT_MS);
    List<String> problems = new ArrayList<>();
    try (Connection c = SqliteConnections.open(config, file)) {
      if (Schema.identify(c, file)) {
        // Sound as SQLite goes, but a store file with no store in it is what a truncation leaves.
        return new CheckReport(
            List.of("the file holds no store (it is empty or has no tables): nothing to serve"),
            0,
            false);
      }
      problems.addAll(run(c, "integrity_check"));
      long format = format(c);
      if (format == Schema.FORMAT_WITHOUT_CHECKSUMS || format == Schema.FORMAT_WRITING_REVISION) {
        return new CheckReport(problems, 0, false);
      }
      if (format != Schema.FORMAT) {
        problems.add(
            "unsupported store format " + format + "; this build reads format " + Schema.FORMAT);
        return new CheckReport(problems, 0, false);
      }
      return new CheckReport(problems, verifyRows(c, problems), true);
    } catch (SQLException e) {
      // A file too damaged for the check to run (or finish) is damage too, and says so.
      problems.add(Errors.wrap(file, "integrity check", e).getMessage());
      return new CheckReport(problems, 0, true);
    }
  }

  private static long format(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT value FROM meta WHERE name = 'format'")) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  /**
   * Adds a line to {@code problems} for each row that does not match its checksum; returns how many
   * did.
   */
  private static long verifyRows(Connection c, List<String> problems) throws SQLException {
    long verified = 0;
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT l.id, " + LogRow.columns("l") + " FROM log AS l ORDER BY l.id")) {
      while (rs.next()) {
        LogRow.Checked row = LogRow.readChecked(rs, 2, rs.getLong(1));
        if (row.intact()) {
          verified++;
        } else {
          problems.add(
              "key "
                  + row.row().key()
                  + " at revision "
                  + row.row().revision()
                  + " (log row "
                  + row.id()
                  + ") is corrupt: "
                  + Errors.mismatch(row));
        }
      }
    }
    return verified;
  }

  private static List<String> run(Connection c, String pragma) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA " + pragma)) {
      while (rs.next()) {
        lines.add(rs.getString(1));
      }
    }
    return lines.equals(List.of("ok")) ? List.of() : lines;
  }
}
