package dev.quartermaster.store;

import java.util.Optional;

/**
 * One change seen by a watch.
 *
 * @param kv for a put, the new key-value; for a delete, the key with an empty value and {@code
 *     modRevision} equal to the delete's revision
 * @param previous the key-value before this change, when the store still has it
 * @param audience the routed watches that must hear of it, as its writer said ({@link Audience})
 */
public record StoreEvent(Type type, KeyValue kv, Optional<KeyValue> previous, Audience audience) {
  public enum Type {
    PUT,
    DELETE
  }

  /**
   * A change that concerns every routed watch (one read back from the log, or whose writer did not
   * say).
   */
  public StoreEvent(Type type, KeyValue kv, Optional<KeyValue> previous) {
    this(type, kv, previous, Audience.EVERYONE);
  }

  public long revision() {
    return kv.modRevision();
  }
}
