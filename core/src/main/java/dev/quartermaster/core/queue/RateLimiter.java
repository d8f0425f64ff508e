package dev.quartermaster.core.queue;

import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.List;

/**
 * Decides how long a key waits before it is retried.
 *
 * <p>{@link #when} is a reservation, not a query: each call counts as one more retry of the key
 * (and may consume shared capacity), so call it once per retry.
 */
public interface RateLimiter<K> {

  /** How long {@code key} should wait before its next attempt; counts this as a retry. */
  Duration when(K key);

  /** Clears {@code key}'s retry history, typically after it succeeded. */
  void forget(K key);

  /** Retries of {@code key} since it was last forgotten. */
  int numRequeues(K key);

  /**
   * The limiter controllers use unless they have a reason not to: per-key exponential backoff from
   * 5 ms doubling to 1000 s, and at most 500 retries a second overall with bursts of 1,000.
   *
   * <p>The overall bucket was client-go's 10/s with bursts of 100. Most of our requeues are lost
   * compare-and-set races, which a burst of work makes by the hundred (a 128-task apply: hundreds
   * of conflicts between the scheduler, the task controller and the agents); past the first 100
   * they were paced at 10 a second, and the bench sat idle for seconds with tasks Pending (4 s
   * became 10–19 s). The per-key backoff is what stops one failing key from looping; the bucket
   * only caps a storm of them, and 500/s is a tenth of what the store commits.
   */
  static <K> RateLimiter<K> controllerDefault(Env env) {
    return new MaxOf<K>(
        List.of(
            new ExponentialBackoff<K>(Duration.ofMillis(5), Duration.ofSeconds(1000)),
            new TokenBucket<K>(env, 500, 1_000)));
  }
}
