package dev.quartermaster.core.informer;

/**
 * The source an {@link Informer} mirrors: a consistent list, then a stream of changes after it.
 *
 * <p>Revisions are one monotonic sequence across all objects of the source. A watch delivers every
 * change after {@code afterRevision}, in revision order, or says it cannot: {@link
 * WatchSink#compacted} when that history is gone, {@link WatchSink#closed} when the stream ended.
 * Re-delivering a change already seen is allowed; the informer ignores it.
 */
public interface ListerWatcher<T> {

  /** Every object, and the revision this list is consistent with. May block; may fail. */
  Listing<T> list() throws Exception;

  /**
   * Streams changes with revision greater than {@code afterRevision} into {@code sink}, from any
   * thread, until cancelled or ended. Nothing may reach the sink after {@link WatchSink#compacted}
   * or {@link WatchSink#closed}.
   */
  Subscription watch(long afterRevision, WatchSink<T> sink) throws Exception;
}
