package dev.quartermaster.store.registry;

import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Store;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The store as a batch's earlier writes leave it, for the rules judging its later writes. A key the
 * batch wrote reads as written (absent once deleted), at the revision the write replaces; the
 * registry pins that revision with the write's own compare, so no compare of a rule on such a key
 * is needed.
 */
final class BatchReads implements Reads {
  /** The version a planned write reads at: no stored key has it (a key's versions start at 1). */
  private static final long PLANNED = 0;

  private final Store store;
  private final Reads live;
  private final Map<String, Optional<KeyValue>> written = new HashMap<>();

  /**
   * Whether {@code kv} is a batch's planned write as its rules read it, not a revision the store
   * holds: its decode must never be kept for later reads.
   */
  static boolean planned(KeyValue kv) {
    return kv.version() == PLANNED;
  }

  BatchReads(Store store) {
    this.store = store;
    this.live = Reads.of(store);
  }

  @Override
  public Optional<KeyValue> get(String key) {
    var ours = written.get(key);
    return ours != null ? ours : store.get(key);
  }

  /** A key this batch wrote is at no stored revision: only its planned value tells. */
  @Override
  public boolean stillAt(String key, long modRevision) {
    return !written.containsKey(key) && live.stillAt(key, modRevision);
  }

  void wrote(PlannedWrite w) {
    written.put(
        w.key(),
        w.finished()
            ? Optional.empty()
            : Optional.of(
                KeyValue.owning(
                    w.key(),
                    w.bytes(),
                    w.expected(),
                    w.expected(),
                    PLANNED))); // its bytes stay as encoded
  }
}
