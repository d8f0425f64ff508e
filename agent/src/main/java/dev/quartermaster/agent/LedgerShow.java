package dev.quartermaster.agent;

import dev.quartermaster.agent.checkpoint.CheckpointCodec;
import dev.quartermaster.agent.ledger.ClaimState;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code qm agent ledger show --state DIR}: prints the ledger checkpoint of a state directory, one
 * claim per line. Read-only and lock-free (the file is only ever replaced by rename, so it is never
 * seen half-written); a corrupt checkpoint is reported as the agent would report it.
 */
public final class LedgerShow {
  private LedgerShow() {}

  /** The checkpoint file of {@code stateDir}. */
  public static Path ledgerFile(Path stateDir) {
    return stateDir.resolve("ledger.json");
  }

  /** Prints the ledger; throws {@link dev.quartermaster.agent.checkpoint.CorruptCheckpointException} if corrupt. */
  public static void run(Path stateDir, PrintStream out) throws IOException {
    var file = ledgerFile(stateDir);
    if (!Files.exists(file)) {
      out.println("no ledger at " + file + " (the agent has not run with this state directory)");
      return;
    }
    var checkpoint = CheckpointCodec.decode(Files.readAllBytes(file), file.toString());
    var state = checkpoint.state();
    out.println("ledger " + file + "  format v" + checkpoint.formatVersion() + "  boot " + checkpoint.bootId()
        + "  version " + state.version() + "  " + state.claims().size() + " entries");
    out.printf("%-38s %-24s %-17s %-20s %-12s %s%n", "UID", "NAME", "STATE", "DEVICES", "DOMAIN", "SINCE");
    for (var e : state.claims().values()) {
      var since = e.since().toString();
      if (e instanceof ClaimState.PrepareAborted a) {
        since += " (expires " + a.expiresAt() + ")";
      }
      out.printf("%-38s %-24s %-17s %-20s %-12s %s%n", e.claim().uid(), e.claim().name(), e.stateName(),
          String.join(",", e.devices()), e.computeDomain().orElse("-"), since);
    }
  }
}
