package dev.quartermaster.core.informer;

import java.util.Objects;

/** One change seen by a watch, at the store revision that made it. */
public sealed interface WatchEvent<T> {

  /** The object as of this change (for a delete, its last state). */
  T object();

  /** The revision of the write that made this change. */
  long revision();

  /** The object was created. */
  record Added<T>(T object, long revision) implements WatchEvent<T> {
    public Added {
      Objects.requireNonNull(object, "object");
    }
  }

  /** The object was changed. */
  record Modified<T>(T object, long revision) implements WatchEvent<T> {
    public Modified {
      Objects.requireNonNull(object, "object");
    }
  }

  /** The object was removed. */
  record Deleted<T>(T object, long revision) implements WatchEvent<T> {
    public Deleted {
      Objects.requireNonNull(object, "object");
    }
  }
}
