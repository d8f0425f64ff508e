package dev.quartermaster.store;

import dev.quartermaster.core.lease.LeaseSlot;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Leader election's key in a {@link Store}: a read, and a transaction comparing its mod revision.
 */
public final class StoreLeases implements LeaseSlot {
  private final Store store;
  private final boolean exclusive;

  public StoreLeases(Store store) {
    this(store, false);
  }

  private StoreLeases(Store store, boolean exclusive) {
    this.store = store;
    this.exclusive = exclusive;
  }

  /**
   * The lease of a store this process holds alone (SQLite behind its file lock): a lease left by
   * another holder is taken over at once, since that holder's process has ended.
   */
  public static StoreLeases ofExclusiveStore(Store store) {
    return new StoreLeases(store, true);
  }

  @Override
  public boolean exclusive() {
    return exclusive;
  }

  @Override
  public Optional<Versioned> read(String key) {
    return store.get(key).map(kv -> new Versioned(kv.value(), kv.modRevision()));
  }

  @Override
  public OptionalLong compareAndSet(String key, long expectedRevision, byte[] value) {
    var result =
        store.txn(
            Txn.when(
                List.of(new Txn.Compare.ModRevision(key, expectedRevision)),
                List.of(new Txn.Op.Put(key, value))));
    return result.succeeded() ? OptionalLong.of(result.revision()) : OptionalLong.empty();
  }
}
