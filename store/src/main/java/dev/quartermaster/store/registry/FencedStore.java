package dev.quartermaster.store.registry;

import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.store.Audience;
import dev.quartermaster.store.ForwardingStore;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;

/**
 * A store view whose transactions also require {@code fenceKey} to be at {@code fenceRevision}: the
 * registry a leader's controllers write through. A transaction that fails because the fence moved
 * throws instead of reporting an ordinary failed compare, so no caller retries it as a conflict.
 * Each transaction also puts {@code fenceRevision} at {@link FencingClient#stampKey}, so the
 * store's history says which term decided every write ({@link #unfenced} stamps without comparing:
 * the naive variant).
 */
final class FencedStore extends ForwardingStore {
  private final String fenceKey;
  private final long fenceRevision;
  private final boolean compare;
  private final Txn.Op stamp;

  private FencedStore(Store store, String fenceKey, long fenceRevision, boolean compare) {
    super(store);
    this.fenceKey = fenceKey;
    this.fenceRevision = fenceRevision;
    this.compare = compare;
    this.stamp =
        new Txn.Op.Put(
            FencingClient.stampKey(fenceKey),
            Long.toString(fenceRevision).getBytes(StandardCharsets.UTF_8),
            Audience.routes(java.util.Set.of()));
  }

  FencedStore(Store store, String fenceKey, long fenceRevision) {
    this(store, fenceKey, fenceRevision, true);
  }

  /** Stamps each transaction with the term as a fenced one does, without comparing the fence. */
  static FencedStore unfenced(Store store, String fenceKey, long fenceRevision) {
    return new FencedStore(store, fenceKey, fenceRevision, false);
  }

  @Override
  public TxnResult txn(Txn txn) {
    var compares = new ArrayList<Txn.Compare>(txn.compares());
    if (compare) {
      compares.add(new Txn.Compare.ModRevision(fenceKey, fenceRevision));
    }
    var onSuccess = new ArrayList<Txn.Op>(txn.onSuccess());
    onSuccess.add(stamp);
    var result = delegate.txn(new Txn(compares, onSuccess, txn.onFailure(), txn.urgency()));
    if (compare && !result.succeeded()) {
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

  /** One write fewer than the store takes: the term's stamp is one more put in each. */
  @Override
  public int writesPerTxn() {
    int beneath = delegate.writesPerTxn();
    return beneath == Integer.MAX_VALUE ? beneath : beneath - 1;
  }

  /** The underlying store stays open: it is not this view's. */
  @Override
  public void close() {}
}
