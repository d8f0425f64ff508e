package dev.quartermaster.core.queue;

import java.time.Duration;
import java.util.List;

/**
 * Combines limiters: a key waits as long as the strictest of them says. Every limiter is asked on
 * every {@link #when}, so each keeps its own count and reservations.
 */
public final class MaxOf<K> implements RateLimiter<K> {

  private final List<RateLimiter<K>> limiters;

  /** The combination of {@code limiters}; at least one. */
  public MaxOf(List<? extends RateLimiter<K>> limiters) {
    if (limiters.isEmpty()) {
      throw new IllegalArgumentException("need at least one limiter");
    }
    this.limiters = List.copyOf(limiters);
  }

  @Override
  public Duration when(K key) {
    Duration longest = Duration.ZERO;
    for (RateLimiter<K> limiter : limiters) {
      Duration d = limiter.when(key);
      if (d.compareTo(longest) > 0) {
        longest = d;
      }
    }
    return longest;
  }

  @Override
  public void forget(K key) {
    limiters.forEach(l -> l.forget(key));
  }

  @Override
  public int numRequeues(K key) {
    int most = 0;
    for (RateLimiter<K> limiter : limiters) {
      most = Math.max(most, limiter.numRequeues(key));
    }
    return most;
  }
}
