package dev.quartermaster.csi.plugin;

import java.time.Duration;

/**
 * How {@link RetryingCsiPlugin} retries: at most {@code attempts} calls in all, waiting {@code
 * initialBackoff} after the first failure and doubling up to {@code maxBackoff}, as the CSI error
 * scheme asks for ABORTED ("retry with exponential back off").
 */
public record RetryPolicy(int attempts, Duration initialBackoff, Duration maxBackoff) {
  public RetryPolicy {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1, not " + attempts);
    }
    if (initialBackoff == null || initialBackoff.isNegative()) {
      throw new IllegalArgumentException("initialBackoff must be zero or more");
    }
    if (maxBackoff == null || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff must be at least initialBackoff");
    }
  }

  /** Five attempts, 100 ms doubling to 5 s. */
  public static RetryPolicy standard() {
    return new RetryPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(5));
  }

  /** The wait before attempt {@code next} (2 is the first retry). */
  public Duration backoffBefore(int next) {
    var wait = initialBackoff;
    for (int i = 2; i < next && wait.compareTo(maxBackoff) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
  }
}
