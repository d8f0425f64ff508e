package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.CliException;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.sqlite.CheckReport;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * {@code qm server --check}: SQLite's full integrity check of the store and a check of every stored
 * value against its checksum, with an exit code scripts can use.
 */
final class StoreCheck {
  private StoreCheck() {}

  /**
   * Prints the findings, each corrupt value by key; returns 0 for a sound store and 1 for a damaged
   * one.
   */
  static int run(Path file, PrintWriter out) {
    CheckReport report;
    try {
      report = SqliteStore.check(file);
    } catch (StoreException e) {
      throw new CliException(e.getMessage());
    }
    if (report.sound()) {
      out.println(
          file
              + ": ok (integrity_check found no problems; "
              + (report.checksummed()
                  ? report.verified() + " stored values match their CRC32C checksums)"
                  : "its values have no checksums yet: a store from before them gets them when a server next opens it)"));
      out.flush();
      return 0;
    }
    out.println(file + ": DAMAGED, " + report.problems().size() + " problem(s):");
    report.problems().forEach(p -> out.println("  " + p));
    out.println("Restore " + file + " from a backup before starting the server.");
    out.flush();
    return 1;
  }
}
