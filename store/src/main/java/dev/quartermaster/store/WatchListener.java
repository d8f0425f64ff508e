package dev.quartermaster.store;

/** Receives a watch's events. Calls for one watch never overlap and come in revision order. */
public interface WatchListener {

  void onEvent(StoreEvent event);

  /**
   * The history the watch needed is gone ({@code compactedRevision} is the store's compacted
   * revision). The watch has ended; the caller re-reads and watches again from the new revision.
   */
  void onCompacted(long compactedRevision);

  /**
   * Every change under the prefix up to {@code revision} has been delivered: the watch has replayed
   * its history up to (at least) the store's revision when it began, and what follows is live. Told
   * once, before any event above that revision. A listener learns from it the revision a stream
   * starts from, which no event says when nothing under the prefix changed (a server's first
   * bookmark).
   */
  default void onCaughtUp(long revision) {}

  /** The watch ended for another reason (store closed, watcher too slow); it will not resume. */
  default void onClosed(String reason) {}
}
