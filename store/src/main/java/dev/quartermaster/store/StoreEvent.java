package dev.quartermaster.store;

import java.util.Optional;

/**
 * One change seen by a watch.
 *
 * @param kv for a put, the new key-value; for a delete, the key with an empty value and {@code
 *     modRevision} equal to the delete's revision
 * @param previous the key-value before this change, when the store still has it
 */
public record StoreEvent(Type type, KeyValue kv, Optional<KeyValue> previous) {
  public enum Type {
    PUT,
    DELETE
  }

  public long revision() {
    return kv.modRevision();
  }
}
