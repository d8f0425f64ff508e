package dev.quartermaster.core.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-key exponential backoff: a key's n-th consecutive retry waits {@code base * 2^(n-1)}, never
 * more than {@code cap}. Thread-safe.
 */
public final class ExponentialBackoff<K> implements RateLimiter<K> {

  private final Duration base;
  private final Duration cap;
  private final ConcurrentHashMap<K, Integer> failures = new ConcurrentHashMap<>();

  /** Backoff starting at {@code base} and doubling up to {@code cap}. */
  public ExponentialBackoff(Duration base, Duration cap) {
    if (base.isNegative() || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException(
          "need 0 <= base <= cap, got base " + base + ", cap " + cap);
    }
    this.base = base;
    this.cap = cap;
  }

  @Override
  public Duration when(K key) {
    Objects.requireNonNull(key, "key");
    int previous = failures.merge(key, 1, Integer::sum) - 1;
    return delay(base, cap, previous);
  }

  @Override
  public void forget(K key) {
    failures.remove(key);
  }

  @Override
  public int numRequeues(K key) {
    return failures.getOrDefault(key, 0);
  }

  /** {@code base * 2^failures}, capped at {@code cap} without overflowing on the way. */
  public static Duration delay(Duration base, Duration cap, int failures) {
    long baseNanos = base.toNanos();
    long capNanos = cap.toNanos();
    if (failures < 0) {
      throw new IllegalArgumentException("failures must be >= 0: " + failures);
    }
    if (failures >= Long.SIZE - 1 || baseNanos > (capNanos >>> failures)) {
      return cap;
    }
    return Duration.ofNanos(baseNanos << failures);
  }
}
