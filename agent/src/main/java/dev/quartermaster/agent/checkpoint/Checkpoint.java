package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.ledger.LedgerState;
import java.util.Objects;

/** A decoded checkpoint: the format version it was written in, the boot it belongs to, the ledger. */
public record Checkpoint(int formatVersion, String bootId, LedgerState state) {
  public Checkpoint {
    Objects.requireNonNull(bootId, "bootId");
    Objects.requireNonNull(state, "state");
  }
}
