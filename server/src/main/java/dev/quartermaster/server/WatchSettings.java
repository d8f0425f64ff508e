package dev.quartermaster.server;

import java.time.Duration;

/**
 * How watch streams behave.
 *
 * @param bookmarkInterval how often an idle stream gets a {@code BOOKMARK} line; it keeps proxies
 *     from timing the connection out and lets the server notice a client that went away
 * @param firstResponseGrace how long the server waits for the store's first word before it commits
 *     to a 200 stream: a compacted history reported within it becomes a plain 410 answer instead of
 *     an {@code ERROR} line (either way the client hears "gone"). Zero by default: the registry
 *     reports a compacted start while the watch is being opened, so there is nothing to wait for, and
 *     a thousand watchers open without a thousand pauses
 * @param queueCapacity events buffered for a slow client; past it the stream ends with an error and
 *     the client re-lists, so one stuck client cannot exhaust the server's memory
 */
public record WatchSettings(Duration bookmarkInterval, Duration firstResponseGrace, int queueCapacity) {
  public static final WatchSettings DEFAULTS = new WatchSettings(Duration.ofSeconds(10), Duration.ZERO, 10_000);

  public WatchSettings {
    if (!bookmarkInterval.isPositive()) {
      throw new IllegalArgumentException("bookmarkInterval must be positive, got " + bookmarkInterval);
    }
    if (firstResponseGrace.isNegative()) {
      throw new IllegalArgumentException("firstResponseGrace must not be negative, got " + firstResponseGrace);
    }
    if (queueCapacity < 1) {
      throw new IllegalArgumentException("queueCapacity must be >= 1, got " + queueCapacity);
    }
  }
}
