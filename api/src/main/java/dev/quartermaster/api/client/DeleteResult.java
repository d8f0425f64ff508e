package dev.quartermaster.api.client;

import dev.quartermaster.api.meta.ApiObject;

/** What a delete did. */
public sealed interface DeleteResult<T extends ApiObject> {
  T object();

  /** The object is gone; {@code object} is its last state. */
  record Deleted<T extends ApiObject>(T object) implements DeleteResult<T> {}

  /** The object is marked for deletion and waits for its finalizers. */
  record Terminating<T extends ApiObject>(T object) implements DeleteResult<T> {}
}
