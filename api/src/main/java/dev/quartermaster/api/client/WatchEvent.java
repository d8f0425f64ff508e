package dev.quartermaster.api.client;

import dev.quartermaster.api.meta.ApiObject;

/**
 * One change: the object as it is after the change (for {@code DELETED}, its last state with {@code
 * metadata.revision} set to the revision of the delete).
 */
public record WatchEvent<T extends ApiObject>(Type type, T object) {
  public enum Type {
    ADDED,
    MODIFIED,
    DELETED
  }

  public long revision() {
    return object.metadata().revision();
  }
}
