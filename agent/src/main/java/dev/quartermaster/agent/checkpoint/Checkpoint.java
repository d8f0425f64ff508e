package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.ledger.LedgerState;
import java.util.Objects;

/**
 * A decoded checkpoint (the snapshot): the format version it was written in, the boot it belongs
 * to, the ledger, and the generation of the journal that continues it (0 when written by an agent
 * without a journal; see {@link LedgerJournal}).
 */
public record Checkpoint(
    int formatVersion, String bootId, LedgerState state, long journalGeneration) {
  public Checkpoint {
    Objects.requireNonNull(bootId, "bootId");
    Objects.requireNonNull(state, "state");
    if (journalGeneration < 0) {
      throw new IllegalArgumentException("journalGeneration must be >= 0: " + journalGeneration);
    }
  }
}
