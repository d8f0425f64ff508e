package dev.quartermaster.api.workload;

import java.time.Duration;

/**
 * How fast a worker slot whose task keeps finishing is restarted, like a crash loop's backoff: the
 * replacement for attempt {@code n} (n ≥ 1) waits {@code initial · 2^(n-1)}, at most {@code max}; a
 * task that ran at least {@code resetAfter} starts the count again at 1.
 *
 * @param initial the wait before the first restart
 * @param max the longest wait
 * @param resetAfter a run this long was healthy: its restart counts as a first one
 */
public record RestartBackoff(Duration initial, Duration max, Duration resetAfter) {
  /** 10 s doubling to 5 min, reset after 10 min of running (Kubernetes' crash-loop backoff). */
  public static final RestartBackoff DEFAULT =
      new RestartBackoff(Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMinutes(10));

  public RestartBackoff {
    if (initial.isNegative() || max.compareTo(initial) < 0 || resetAfter.isNegative()) {
      throw new IllegalArgumentException(
          "bad restart backoff: " + initial + ", " + max + ", " + resetAfter);
    }
  }

  /** The attempt number of the task that replaces {@code finished}. */
  public int nextAttempt(Task finished) {
    var s = finished.status();
    // Both times come from the agent's clock: their difference is a fair measure of the run.
    boolean ranLong =
        s.startedAt().isPresent()
            && s.finishedAt().isPresent()
            && Duration.between(s.startedAt().get(), s.finishedAt().get()).compareTo(resetAfter)
                >= 0;
    return ranLong ? 1 : finished.spec().attempt() + 1;
  }

  /** How long the slot waits before {@code attempt} is created. */
  public Duration delayBefore(int attempt) {
    if (attempt <= 0 || initial.isZero()) {
      return Duration.ZERO;
    }
    var d = initial;
    for (int i = 1; i < attempt && d.compareTo(max) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(max) > 0 ? max : d;
  }
}
