package dev.quartermaster.api.client;

import dev.quartermaster.api.meta.ApiObject;

/** Receives one watch's events, in revision order; calls never overlap. */
public interface WatchHandler<T extends ApiObject> {

  void onEvent(WatchEvent<T> event);

  /**
   * The history after the requested revision was compacted (HTTP 410). The watch has ended; list
   * again and watch from the list's revision.
   */
  void onGone(long compactedRevision);

  /**
   * Every change up to {@code revision} has been delivered: the replay of the history the watch
   * asked for reached the revision current when it began. Told at most once, before any later
   * change.
   */
  default void onCaughtUp(long revision) {}

  /** The watch ended (connection lost, server shut down, client too slow). */
  default void onClosed(String reason) {}
}
