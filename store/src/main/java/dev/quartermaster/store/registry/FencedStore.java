package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import java.util.ArrayList;
import java.util.Optional;

/**
 * A store view whose transactions also require {@code fenceKey} to be at {@code fenceRevision}: the
 * registry a leader's controllers write through. A transaction that fails because the fence moved
 * throws instead of reporting an ordinary failed compare, so no caller retries it as a conflict.
 */
final class FencedStore implements Store {
  private final Store store;
  private final String fenceKey;
  private final long fenceRevision;

  FencedStore(Store store, String fenceKey, long fenceRevision) {
    this.store = store;
    this.fenceKey = fenceKey;
    this.fenceRevision = fenceRevision;
  }

  @Override
  public TxnResult txn(Txn txn) {
    var compares = new ArrayList<Txn.Compare>(txn.compares());
    compares.add(new Txn.Compare.ModRevision(fenceKey, fenceRevision));
    var result = store.txn(new Txn(compares, txn.onSuccess(), txn.onFailure()));
    if (!result.succeeded()) {
      long now = store.get(fenceKey).map(KeyValue::modRevision).orElse(0L);
      if (now != fenceRevision) {
        throw new ApiException(Reason.Unavailable, "fenced: the leader's term that began at revision " + fenceRevision
            + " of " + fenceKey + " has ended (now at " + now + "); a newer leader writes");
      }
    }
    return result;
  }

  @Override
  public Optional<KeyValue> get(String key) {
    return store.get(key);
  }

  @Override
  public Range range(String prefix, long revision) {
    return store.range(prefix, revision);
  }

  @Override
  public Watch watch(String prefix, long afterRevision, WatchListener listener) {
    return store.watch(prefix, afterRevision, listener);
  }

  @Override
  public void compact(long revision) {
    store.compact(revision);
  }

  @Override
  public long currentRevision() {
    return store.currentRevision();
  }

  @Override
  public long compactedRevision() {
    return store.compactedRevision();
  }

  /** The underlying store stays open: it is not this view's. */
  @Override
  public void close() {}
}
