package dev.quartermaster.agent.ledger;

import java.util.List;
import java.util.Objects;

/**
 * One change to the ledger, as the durable journal records it: the ledger version it produced and
 * what it did. Every version bump is exactly one change, so replaying a snapshot's changes in
 * version order, with no gap, rebuilds the ledger exactly.
 */
public sealed interface LedgerChange {

  /** The ledger version right after this change. */
  long version();

  /** {@code entry} replaced whatever its uid had (a prepare, a completion, a tombstone). */
  record Put(long version, ClaimState entry) implements LedgerChange {
    public Put {
      Objects.requireNonNull(entry, "entry");
    }
  }

  /** Expired tombstones were dropped (several at once: pruning is one version step). */
  record Removed(long version, List<String> uids) implements LedgerChange {
    public Removed {
      uids = List.copyOf(uids);
    }
  }

  /**
   * Receives every change in version order, under the ledger's lock: must be quick and never block
   * on I/O.
   */
  @FunctionalInterface
  interface Listener {
    Listener NONE = change -> {};

    void changed(LedgerChange change);
  }
}
