package dev.quartermaster.agent;

import dev.quartermaster.agent.checkpoint.AtomicLedgerFile;
import dev.quartermaster.agent.checkpoint.CheckpointCodec;
import dev.quartermaster.agent.checkpoint.CorruptCheckpointException;
import dev.quartermaster.agent.checkpoint.LedgerRecovery;
import dev.quartermaster.agent.checkpoint.StateDirLock;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code qm agent ledger reset --state DIR}: the explicit way to start over from an empty ledger
 * (never done silently). Refuses while an agent holds the state directory, keeps the old snapshot
 * and journal beside the new snapshot, and lists every entry it dropped (snapshot and journal
 * together), so an operator can check that those devices are really free.
 */
public final class LedgerReset {
  private LedgerReset() {}

  /**
   * What was dropped; empty if the old ledger was unreadable (then {@code unreadable} says why).
   */
  public record Report(List<ClaimState> dropped, Path backup, String unreadable) {
    public Report {
      dropped = List.copyOf(dropped);
    }
  }

  /**
   * Resets the ledger of {@code stateDir} to empty for boot {@code bootId}, printing what it drops.
   */
  public static Report run(Path stateDir, String bootId, Env env, PrintStream out)
      throws IOException {
    try (var lock = StateDirLock.acquire(stateDir)) {
      var file = LedgerShow.ledgerFile(stateDir);
      var journal = LedgerShow.journalFile(stateDir);
      var mark = LedgerShow.markFile(stateDir);
      // A mark alone still counts: it is what makes the agent refuse a ledger whose files were
      // lost.
      if (!Files.exists(file) && !Files.exists(journal) && !Files.exists(mark)) {
        out.println("no ledger at " + file + "; nothing to reset");
        return new Report(List.of(), file, "");
      }
      List<ClaimState> dropped = List.of();
      String unreadable = "";
      long version = 0;
      try {
        var found = LedgerRecovery.read(new AtomicLedgerFile(file));
        if (found.isPresent()) {
          dropped = List.copyOf(found.get().state().claims().values());
          version = found.get().state().version();
        }
      } catch (CorruptCheckpointException e) {
        unreadable = e.getMessage();
      }
      var stamp = ".reset-" + env.now().toString().replace(':', '-');
      var backup = file.resolveSibling(file.getFileName() + stamp);
      if (Files.exists(file)) {
        Files.copy(file, backup);
      }
      if (Files.exists(journal)) {
        Files.copy(journal, journal.resolveSibling(journal.getFileName() + stamp));
      }
      if (Files.exists(mark)) {
        Files.copy(mark, mark.resolveSibling(mark.getFileName() + stamp));
      }
      AtomicLedgerFile.fsyncDirectory(stateDir);
      // The mark vouches for the old journal's records; the new ledger starts without one and its
      // first journal writes a fresh mark.
      Files.deleteIfExists(mark);
      // The journal goes first: a new snapshot beside an old journal of a newer generation would be
      // refused at start. With none, the agent starts a journal for the snapshot's generation.
      Files.deleteIfExists(journal);
      AtomicLedgerFile.fsyncDirectory(stateDir);
      new AtomicLedgerFile(file)
          .write(CheckpointCodec.encode(new LedgerState(Map.of(), version + 1), bootId));
      out.println(
          "reset ledger "
              + file
              + "; the old one is kept as "
              + backup
              + (Files.exists(journal.resolveSibling(journal.getFileName() + stamp))
                  ? " (and its journal beside it)"
                  : ""));
      if (!unreadable.isEmpty()) {
        out.println(
            "the old ledger could not be read, so what it held cannot be listed: " + unreadable);
      } else {
        out.println("dropped " + dropped.size() + " entries:");
        for (var e : dropped) {
          out.println(
              "  "
                  + e.claim()
                  + " "
                  + e.stateName()
                  + " "
                  + e.devices()
                  + " "
                  + e.computeDomain().orElse("-"));
        }
      }
      return new Report(dropped, backup, unreadable);
    }
  }
}
