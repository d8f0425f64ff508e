package dev.quartermaster.server;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.error.ApiError;

/** What a watch session's writer takes from its queue, in order. */
sealed interface StreamItem {

  /**
   * A change from the store, its encoded line (shared by every stream that sends it, never changed:
   * what it counts against the stream's byte bound) and when it was queued ({@code Env#nanoTime}),
   * for the fan-out lag.
   */
  record Change(WatchEvent<?> event, byte[] line, long queuedAt) implements StreamItem {
    int bytes() {
      return line.length;
    }
  }

  /** Time for a keep-alive line. */
  record Tick() implements StreamItem {}

  /** The store's replay reached {@code revision}: the stream's first bookmark names it. */
  record CaughtUp(long revision) implements StreamItem {}

  /** The history was compacted; the last item. */
  record Gone(long compactedRevision) implements StreamItem {}

  /**
   * The stream must end with this error (store closed, client too slow, server stopping); the last
   * item.
   */
  record End(ApiError error) implements StreamItem {}
}
