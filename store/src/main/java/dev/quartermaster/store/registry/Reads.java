package dev.quartermaster.store.registry;

import dev.quartermaster.store.KeyValue;
import java.util.Optional;

/**
 * Where a rule reads the objects it judges a write against: the store, or, inside a batch, the
 * store as the batch's earlier writes leave it.
 */
@FunctionalInterface
interface Reads {
  Optional<KeyValue> get(String key);
}
