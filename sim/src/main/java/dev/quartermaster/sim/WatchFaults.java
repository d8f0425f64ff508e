package dev.quartermaster.sim;

import java.time.Duration;

/**
 * How a {@link SimStore} mistreats its watches: each event is held back a random delay (order per
 * watch is kept), and each delivery may instead end the watch, as a dropped connection or a
 * compacted history would, so the watcher has to list again.
 *
 * @param maxDelay each event waits a uniformly drawn delay in {@code [0, maxDelay]} of env time
 * @param dropChance the chance that a delivery ends its watch instead
 * @param compactedShare of the drops, the share reported as "compacted" (the rest as "closed")
 */
public record WatchFaults(Duration maxDelay, double dropChance, double compactedShare) {

  /** Prompt, faithful watches. */
  public static final WatchFaults NONE = new WatchFaults(Duration.ZERO, 0, 0);

  public WatchFaults {
    if (maxDelay.isNegative()
        || dropChance < 0
        || dropChance > 1
        || compactedShare < 0
        || compactedShare > 1) {
      throw new IllegalArgumentException(
          "bad watch faults: " + maxDelay + ", " + dropChance + ", " + compactedShare);
    }
  }

  /**
   * The incident's stale cache: events late by up to 2 s, and about one delivery in 50 re-lists.
   */
  public static WatchFaults staleCache() {
    return new WatchFaults(Duration.ofSeconds(2), 0.02, 0.5);
  }
}
