package dev.quartermaster.agent;

import dev.quartermaster.agent.checkpoint.AtomicLedgerFile;
import dev.quartermaster.agent.checkpoint.JournalMark;
import dev.quartermaster.agent.checkpoint.LedgerRecovery;
import dev.quartermaster.agent.checkpoint.LedgerRecovery.JournalStatus;
import dev.quartermaster.agent.ledger.ClaimState;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code qm agent ledger show --state DIR}: prints the ledger of a state directory (its snapshot
 * with its journal replayed), one claim per line. Read-only and lock-free: the snapshot is only
 * ever replaced by rename, and a journal frame being appended right now reads as a torn tail, which
 * is reported, not cut off; a corrupt ledger is reported as the agent would report it.
 */
public final class LedgerShow {
  private LedgerShow() {}

  /** The checkpoint (snapshot) file of {@code stateDir}. */
  public static Path ledgerFile(Path stateDir) {
    return stateDir.resolve("ledger.json");
  }

  /** The journal file of {@code stateDir}. */
  public static Path journalFile(Path stateDir) {
    return AtomicLedgerFile.journalPath(ledgerFile(stateDir));
  }

  /** The journal's durable mark file of {@code stateDir} (see JournalMark). */
  public static Path markFile(Path stateDir) {
    var journal = journalFile(stateDir);
    return journal.resolveSibling(journal.getFileName() + ".mark");
  }

  private static String describe(JournalMark m) {
    return "generation "
        + m.generation()
        + "  "
        + m.frames()
        + " records ("
        + m.length()
        + " bytes"
        + (m.version().isPresent() ? ", through ledger version " + m.version().getAsLong() : "")
        + ") acknowledged";
  }

  /**
   * Prints the ledger; throws {@link dev.quartermaster.agent.checkpoint.CorruptCheckpointException}
   * if corrupt.
   */
  public static void run(Path stateDir, PrintStream out) throws IOException {
    var file = ledgerFile(stateDir);
    var found = LedgerRecovery.read(new AtomicLedgerFile(file));
    if (found.isEmpty()) {
      out.println("no ledger at " + file + " (the agent has not run with this state directory)");
      return;
    }
    var recovered = found.get();
    var checkpoint = recovered.snapshot();
    var state = recovered.state();
    out.println(
        "ledger "
            + file
            + "  format v"
            + checkpoint.formatVersion()
            + "  boot "
            + checkpoint.bootId()
            + "  version "
            + state.version()
            + "  "
            + state.claims().size()
            + " entries");
    out.println(
        switch (recovered.journal()) {
          case JournalStatus.Absent _ -> "journal: none (the snapshot holds everything)";
          case JournalStatus.Stale stale ->
              "journal: generation "
                  + stale.generation()
                  + " is older than the snapshot's and is ignored (a compaction was cut short)";
          case JournalStatus.Replayed replayed ->
              "journal "
                  + journalFile(stateDir)
                  + "  generation "
                  + replayed.scan().header().generation()
                  + "  "
                  + replayed.scan().changes()
                  + " changes since snapshot version "
                  + checkpoint.state().version()
                  + (replayed.scan().torn()
                      ? "  (torn tail at byte offset "
                          + replayed.scan().validEnd()
                          + ": an unacknowledged append, cut off when the agent next starts)"
                      : "");
        });
    out.println(
        recovered
            .mark()
            .map(m -> "mark " + markFile(stateDir) + "  " + describe(m) + "; all present")
            .orElse("mark: none (" + markFile(stateDir) + " is missing or unreadable)"));
    out.println(
        recovered
            .headerMark()
            .map(m -> "journal header count  " + describe(m) + "; all present")
            .orElse("journal header count: none (a format-1 journal, or none committed to yet)"));
    out.printf(
        "%-38s %-24s %-17s %-20s %-12s %s%n", "UID", "NAME", "STATE", "DEVICES", "DOMAIN", "SINCE");
    for (var e : state.claims().values()) {
      var since = e.since().toString();
      if (e instanceof ClaimState.PrepareAborted a) {
        since += " (expires " + a.expiresAt() + ")";
      }
      out.printf(
          "%-38s %-24s %-17s %-20s %-12s %s%n",
          e.claim().uid(),
          e.claim().name(),
          e.stateName(),
          String.join(",", e.devices()),
          e.computeDomain().orElse("-"),
          since);
    }
  }
}
