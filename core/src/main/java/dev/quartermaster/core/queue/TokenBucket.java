package dev.quartermaster.core.queue;

import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.Objects;

/**
 * One bucket shared by all keys: up to {@code burst} retries at once, refilled at {@code
 * perSecond}.
 *
 * <p>Each {@link #when} reserves a token even when none is left and returns how long until that
 * token exists, so callers queue up behind one another instead of all retrying together. Kept as
 * the time the bucket next runs dry, in integer nanoseconds of {@link Env#nanoTime}, which makes it
 * exact and replayable. Keys are ignored, so {@link #forget} does nothing.
 */
public final class TokenBucket<K> implements RateLimiter<K> {

  private final Env env;
  private final long interval;
  private final long capacity;
  private long emptyAt;
  private boolean started;

  /** A bucket of {@code burst} tokens, refilled at {@code perSecond} tokens a second. */
  public TokenBucket(Env env, double perSecond, int burst) {
    if (!(perSecond > 0) || burst < 1) {
      throw new IllegalArgumentException(
          "need perSecond > 0 and burst >= 1, got " + perSecond + ", " + burst);
    }
    this.env = Objects.requireNonNull(env, "env");
    this.interval = Math.max(1, Math.round(1e9 / perSecond));
    try {
      this.capacity = Math.multiplyExact(interval, (long) burst);
    } catch (ArithmeticException overflow) {
      throw new IllegalArgumentException(
          "bucket too large: " + perSecond + "/s, burst " + burst, overflow);
    }
  }

  @Override
  public synchronized Duration when(K key) {
    long now = env.nanoTime();
    if (!started) {
      emptyAt = now - capacity; // starts full
      started = true;
    }
    // A bucket never holds more than its burst: time idle beyond that is not saved up.
    emptyAt = Math.max(emptyAt, now - capacity) + interval;
    return Duration.ofNanos(Math.max(0, emptyAt - now));
  }

  @Override
  public void forget(K key) {
    // Overall limit: nothing per key to forget.
  }

  @Override
  public int numRequeues(K key) {
    return 0;
  }
}
