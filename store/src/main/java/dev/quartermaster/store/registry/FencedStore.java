package dev.quartermaster.store.registry;

import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.store.ForwardingStore;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import java.util.ArrayList;

/**
 * A store view whose transactions also require {@code fenceKey} to be at {@code fenceRevision}: the
 * registry a leader's controllers write through. A transaction that fails because the fence moved
 * throws instead of reporting an ordinary failed compare, so no caller retries it as a conflict.
 */
final class FencedStore extends ForwardingStore {
  private final String fenceKey;
  private final long fenceRevision;

  FencedStore(Store store, String fenceKey, long fenceRevision) {
    super(store);
    this.fenceKey = fenceKey;
    this.fenceRevision = fenceRevision;
  }

  @Override
  public TxnResult txn(Txn txn) {
    var compares = new ArrayList<Txn.Compare>(txn.compares());
    compares.add(new Txn.Compare.ModRevision(fenceKey, fenceRevision));
    var result = delegate.txn(new Txn(compares, txn.onSuccess(), txn.onFailure()));
    if (!result.succeeded()) {
      long now = delegate.get(fenceKey).map(KeyValue::modRevision).orElse(0L);
      if (now != fenceRevision) {
        throw new ApiException(
            Reason.Unavailable,
            FencingClient.TERM_ENDED
                + "the leader's term that began at revision "
                + fenceRevision
                + " of "
                + fenceKey
                + " has ended (now at "
                + now
                + "); a newer leader writes");
      }
    }
    return result;
  }

  /** The underlying store stays open: it is not this view's. */
  @Override
  public void close() {}
}
