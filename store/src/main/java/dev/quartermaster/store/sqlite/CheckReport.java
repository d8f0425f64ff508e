package dev.quartermaster.store.sqlite;

import java.util.List;

/**
 * What {@code qm server --check} found in a store file.
 *
 * @param problems SQLite's findings, then one line for each log row that does not match its
 *     checksum, naming its key and revision; empty when the store is sound
 * @param verified how many log rows matched their checksum
 * @param checksummed false for a store written before rows had checksums (format 2 or older): its
 *     rows get them when a server next opens it, and until then only SQLite's check applies
 */
public record CheckReport(List<String> problems, long verified, boolean checksummed) {
  public CheckReport {
    problems = List.copyOf(problems);
  }

  public boolean sound() {
    return problems.isEmpty();
  }
}
