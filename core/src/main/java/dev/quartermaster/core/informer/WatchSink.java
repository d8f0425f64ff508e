package dev.quartermaster.core.informer;

/** Where a {@link ListerWatcher}'s watch delivers; callable from any thread. */
public interface WatchSink<T> {

  /** A change, in revision order. */
  void event(WatchEvent<T> event);

  /** Progress without a change: no event at or below {@code revision} is still to come. */
  void bookmark(long revision);

  /** The requested history is gone (compacted); the watcher must list again. Ends the watch. */
  void compacted();

  /** The watch ended for {@code reason} (server going away, connection lost). */
  void closed(String reason);
}
