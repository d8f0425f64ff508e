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
 *     reports a compacted start while the watch is being opened, so there is nothing to wait for,
 *     and a thousand watchers open without a thousand pauses
 * @param queueCapacity events buffered for a slow client; past it the stream ends with a "too slow"
 *     line and the client re-lists
 * @param maxQueueBytes how far a client may fall behind, in bytes of lines the server holds for it
 *     (queued, and in its connection's buffer); past it the stream is cut the same way. With {@code
 *     queueCapacity} it bounds what one stalled watcher pins: the count alone did not, since events
 *     can be large
 * @param writeTimeout how long one write to a client may block (its socket buffer full because it
 *     stopped reading) before the server drops the connection
 */
public record WatchSettings(
    Duration bookmarkInterval,
    Duration firstResponseGrace,
    int queueCapacity,
    long maxQueueBytes,
    Duration writeTimeout) {
  /**
   * 4 MiB: a healthy client takes a burst of writes (a gang's claims) long before; 400 watchers
   * that never read while 1,500 writes of 4 KB flowed were each 6 MB behind, and are cut.
   */
  public static final long DEFAULT_MAX_QUEUE_BYTES = 4L << 20;

  public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(30);
  public static final WatchSettings DEFAULTS =
      new WatchSettings(Duration.ofSeconds(10), Duration.ZERO, 10_000);

  public WatchSettings {
    if (!bookmarkInterval.isPositive()) {
      throw new IllegalArgumentException(
          "bookmarkInterval must be positive, got " + bookmarkInterval);
    }
    if (firstResponseGrace.isNegative()) {
      throw new IllegalArgumentException(
          "firstResponseGrace must not be negative, got " + firstResponseGrace);
    }
    if (queueCapacity < 1) {
      throw new IllegalArgumentException("queueCapacity must be >= 1, got " + queueCapacity);
    }
    if (maxQueueBytes < 1) {
      throw new IllegalArgumentException("maxQueueBytes must be >= 1, got " + maxQueueBytes);
    }
    if (!writeTimeout.isPositive()) {
      throw new IllegalArgumentException("writeTimeout must be positive, got " + writeTimeout);
    }
  }

  /** The default byte bound and write timeout. */
  public WatchSettings(Duration bookmarkInterval, Duration firstResponseGrace, int queueCapacity) {
    this(
        bookmarkInterval,
        firstResponseGrace,
        queueCapacity,
        DEFAULT_MAX_QUEUE_BYTES,
        DEFAULT_WRITE_TIMEOUT);
  }

  public WatchSettings withMaxQueueBytes(long bytes) {
    return new WatchSettings(
        bookmarkInterval, firstResponseGrace, queueCapacity, bytes, writeTimeout);
  }

  public WatchSettings withWriteTimeout(Duration timeout) {
    return new WatchSettings(
        bookmarkInterval, firstResponseGrace, queueCapacity, maxQueueBytes, timeout);
  }
}
