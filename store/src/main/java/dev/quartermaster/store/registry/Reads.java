package dev.quartermaster.store.registry;

import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Store;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where a rule reads the objects it judges a write against: the store, or, inside a batch, the
 * store as the batch's earlier writes leave it.
 */
@FunctionalInterface
interface Reads {
  Optional<KeyValue> get(String key);

  /**
   * Whether {@code key}'s value, as these reads see it, is still the one stored at {@code
   * modRevision}: for a reader holding that value decoded. This default reads the value; the store
   * itself can answer without it ({@link dev.quartermaster.store.Store#modRevision}).
   */
  default boolean stillAt(String key, long modRevision) {
    return get(key).filter(kv -> kv.modRevision() == modRevision).isPresent();
  }

  /** The store as it is now. */
  static Reads of(Store store) {
    return new Reads() {
      @Override
      public Optional<KeyValue> get(String key) {
        return store.get(key);
      }

      @Override
      public boolean stillAt(String key, long modRevision) {
        return store.modRevision(key).equals(OptionalLong.of(modRevision));
      }
    };
  }
}
