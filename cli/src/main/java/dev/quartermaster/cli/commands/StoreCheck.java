package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.CliException;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** {@code qm server --check}: SQLite's full integrity check of the store, with an exit code scripts can use. */
final class StoreCheck {
  private StoreCheck() {}

  /** Prints the findings; returns 0 for a sound store and 1 for a damaged one. */
  static int run(Path file, PrintWriter out) {
    List<String> problems;
    try {
      problems = SqliteStore.check(file);
    } catch (StoreException e) {
      throw new CliException(e.getMessage());
    }
    if (problems.isEmpty()) {
      out.println(file + ": ok (integrity_check found no problems)");
      out.flush();
      return 0;
    }
    out.println(file + ": DAMAGED, integrity_check found " + problems.size() + " problem(s):");
    problems.forEach(p -> out.println("  " + p));
    out.println("Restore " + file + " from a backup before starting the server.");
    out.flush();
    return 1;
  }
}
