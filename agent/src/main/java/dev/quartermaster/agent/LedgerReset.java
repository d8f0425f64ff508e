package dev.quartermaster.agent;

import dev.quartermaster.agent.checkpoint.AtomicLedgerFile;
import dev.quartermaster.agent.checkpoint.CheckpointCodec;
import dev.quartermaster.agent.checkpoint.CorruptCheckpointException;
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
 * (never done silently). Refuses while an agent holds the state directory, keeps the old file
 * beside the new one, and lists every entry it dropped, so an operator can check that those
 * devices are really free.
 */
public final class LedgerReset {
  private LedgerReset() {}

  /** What was dropped; empty if the old checkpoint was unreadable (then {@code unreadable} says why). */
  public record Report(List<ClaimState> dropped, Path backup, String unreadable) {
    public Report {
      dropped = List.copyOf(dropped);
    }
  }

  /** Resets the ledger of {@code stateDir} to empty for boot {@code bootId}, printing what it drops. */
  public static Report run(Path stateDir, String bootId, Env env, PrintStream out) throws IOException {
    try (var lock = StateDirLock.acquire(stateDir)) {
      var file = LedgerShow.ledgerFile(stateDir);
      if (!Files.exists(file)) {
        out.println("no ledger at " + file + "; nothing to reset");
        return new Report(List.of(), file, "");
      }
      List<ClaimState> dropped = List.of();
      String unreadable = "";
      long version = 0;
      try {
        var state = CheckpointCodec.decode(Files.readAllBytes(file), file.toString()).state();
        dropped = List.copyOf(state.claims().values());
        version = state.version();
      } catch (CorruptCheckpointException e) {
        unreadable = e.getMessage();
      }
      var backup = file.resolveSibling("ledger.json.reset-" + env.now().toString().replace(':', '-'));
      Files.copy(file, backup);
      AtomicLedgerFile.fsyncDirectory(stateDir);
      new AtomicLedgerFile(file).write(CheckpointCodec.encode(new LedgerState(Map.of(), version + 1), bootId));
      out.println("reset ledger " + file + "; the old one is kept as " + backup);
      if (!unreadable.isEmpty()) {
        out.println("the old ledger could not be read, so what it held cannot be listed: " + unreadable);
      } else {
        out.println("dropped " + dropped.size() + " entries:");
        for (var e : dropped) {
          out.println("  " + e.claim() + " " + e.stateName() + " " + e.devices() + " " + e.computeDomain().orElse("-"));
        }
      }
      return new Report(dropped, backup, unreadable);
    }
  }
}
