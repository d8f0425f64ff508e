package dev.quartermaster.store.registry;

import dev.quartermaster.store.ForwardingStore;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;

/**
 * A store that runs another writer's step just before the next transaction: a race, placed by hand.
 */
final class InterleavingStore extends ForwardingStore {
  private Runnable before = () -> {};

  InterleavingStore(Store delegate) {
    super(delegate);
  }

  void beforeNextTxn(Runnable step) {
    before = step;
  }

  @Override
  public TxnResult txn(Txn txn) {
    var step = before;
    before = () -> {};
    step.run();
    return delegate.txn(txn);
  }
}
