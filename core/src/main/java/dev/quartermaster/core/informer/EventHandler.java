package dev.quartermaster.core.informer;

/**
 * Told about each change an {@link Informer} applies to its cache, after the cache shows it, in the
 * order applied, one call at a time. Handlers should be quick (typically: enqueue a key).
 */
public interface EventHandler<T> {

  /** {@code object} entered the cache. */
  default void onAdd(T object) {}

  /** {@code old} was replaced by {@code current}. */
  default void onUpdate(T old, T current) {}

  /**
   * {@code lastKnown} left the cache. After a re-list this is the cache's last copy, which may be
   * older than the object's final state.
   */
  default void onDelete(T lastKnown) {}

  /** A handler that does {@code action} with the current object on every add and update. */
  static <T> EventHandler<T> onAddOrUpdate(java.util.function.Consumer<T> action) {
    return new EventHandler<>() {
      @Override
      public void onAdd(T object) {
        action.accept(object);
      }

      @Override
      public void onUpdate(T old, T current) {
        action.accept(current);
      }
    };
  }

  /**
   * A handler that does {@code action} on every add, update (with the old and the current object)
   * and delete.
   */
  static <T> EventHandler<T> onAnyChange(java.util.function.Consumer<T> action) {
    return new EventHandler<>() {
      @Override
      public void onAdd(T object) {
        action.accept(object);
      }

      @Override
      public void onUpdate(T old, T current) {
        action.accept(old);
        action.accept(current);
      }

      @Override
      public void onDelete(T lastKnown) {
        action.accept(lastKnown);
      }
    };
  }
}
