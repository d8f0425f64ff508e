package dev.quartermaster.store;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * A {@link Store} that passes every call to another: the base of views that change one thing (the
 * fence of a leader's term; in tests, a stall or an interleaving) and leave the rest as it is.
 */
public abstract class ForwardingStore implements Store {
  protected final Store delegate;

  protected ForwardingStore(Store delegate) {
    this.delegate = delegate;
  }

  @Override
  public Optional<KeyValue> get(String key) {
    return delegate.get(key);
  }

  @Override
  public OptionalLong modRevision(String key) {
    return delegate.modRevision(key);
  }

  @Override
  public Range range(String prefix, long revision) {
    return delegate.range(prefix, revision);
  }

  @Override
  public Range range(String prefix, long revision, String startAfter, int limit) {
    return delegate.range(prefix, revision, startAfter, limit);
  }

  @Override
  public TxnResult txn(Txn txn) {
    return delegate.txn(txn);
  }

  @Override
  public int writesPerTxn() {
    return delegate.writesPerTxn();
  }

  @Override
  public Watch watch(String prefix, long afterRevision, WatchListener listener) {
    return delegate.watch(prefix, afterRevision, listener);
  }

  @Override
  public Watch watch(String prefix, String route, long afterRevision, WatchListener listener) {
    return delegate.watch(prefix, route, afterRevision, listener);
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
