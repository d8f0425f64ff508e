package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.core.informer.EventHandler;

/**
 * A ledgers informer's handler that sees each ledger as a change from what it was: an add as a
 * change from the empty ledger (a restart replays every ledger as adds), a delete as nothing.
 */
interface LedgerChanges extends EventHandler<QuotaLedger> {
  void changed(QuotaLedger before, QuotaLedger after);

  @Override
  default void onAdd(QuotaLedger ledger) {
    changed(new QuotaLedger(null, null, null), ledger);
  }

  @Override
  default void onUpdate(QuotaLedger old, QuotaLedger current) {
    changed(old, current);
  }
}
