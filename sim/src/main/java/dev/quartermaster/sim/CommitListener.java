package dev.quartermaster.sim;

import dev.quartermaster.store.StoreEvent;
import java.util.List;

/**
 * Told of every committed write transaction, synchronously, before the transaction returns and
 * before any watch hears of it: the true state of the store, for invariant checks that must not
 * look through a (possibly stale) cache.
 */
@FunctionalInterface
public interface CommitListener {
  void committed(long revision, List<StoreEvent> changes);
}
