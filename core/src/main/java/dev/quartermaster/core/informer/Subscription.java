package dev.quartermaster.core.informer;

/** A running watch. */
@FunctionalInterface
public interface Subscription {
  /** Stops the watch; idempotent. Events already in flight may still arrive and are ignored. */
  void cancel();
}
