package dev.quartermaster.store.registry;

import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import java.util.Optional;

/** A store that runs another writer's step just before the next transaction: a race, placed by hand. */
final class InterleavingStore implements Store {
  private final Store delegate;
  private Runnable before = () -> {};

  InterleavingStore(Store delegate) {
    this.delegate = delegate;
  }

  void beforeNextTxn(Runnable step) {
    before = step;
  }

  @Override
  public Optional<KeyValue> get(String key) {
    return delegate.get(key);
  }

  @Override
  public Range range(String prefix, long revision) {
    return delegate.range(prefix, revision);
  }

  @Override
  public TxnResult txn(Txn txn) {
    var step = before;
    before = () -> {};
    step.run();
    return delegate.txn(txn);
  }

  @Override
  public Watch watch(String prefix, long afterRevision, WatchListener listener) {
    return delegate.watch(prefix, afterRevision, listener);
  }

  @Override
  public void compact(long revision) {
    delegate.compact(revision);
  }

  @Override
  public long currentRevision() {
    return delegate.currentRevision();
  }

  @Override
  public long compactedRevision() {
    return delegate.compactedRevision();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
