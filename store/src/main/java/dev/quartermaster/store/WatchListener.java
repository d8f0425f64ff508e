package dev.quartermaster.store;

/** Receives a watch's events. Calls for one watch never overlap and come in revision order. */
public interface WatchListener {

  void onEvent(StoreEvent event);

  /**
   * The history the watch needed is gone ({@code compactedRevision} is the store's compacted
   * revision). The watch has ended; the caller re-reads and watches again from the new revision.
   */
  void onCompacted(long compactedRevision);

  /** The watch ended for another reason (store closed, watcher too slow); it will not resume. */
  default void onClosed(String reason) {}
}
