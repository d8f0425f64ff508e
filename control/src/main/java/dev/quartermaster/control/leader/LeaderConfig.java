package dev.quartermaster.control.leader;

import java.time.Duration;

/**
 * @param leaseDuration how long a non-leader waits, after it last saw the lease change, before it
 *     takes the lease over
 * @param renewDeadline how long the leader keeps acting without a successful renewal; shorter than
 *     {@code leaseDuration}, and the difference is the safety margin against a slow clock
 * @param retryPeriod how often every candidate tries to acquire or renew
 * @param key the store key holding the lease
 */
public record LeaderConfig(
    Duration leaseDuration, Duration renewDeadline, Duration retryPeriod, String key) {
  public static final LeaderConfig DEFAULTS =
      new LeaderConfig(
          Duration.ofSeconds(15),
          Duration.ofSeconds(10),
          Duration.ofSeconds(2),
          "/leases/controllers");

  public LeaderConfig {
    if (!(leaseDuration.compareTo(renewDeadline) > 0
        && renewDeadline.compareTo(retryPeriod.multipliedBy(6).dividedBy(5)) > 0
        && !retryPeriod.isNegative()
        && !retryPeriod.isZero())) {
      throw new IllegalArgumentException(
          "need leaseDuration > renewDeadline > 1.2 * retryPeriod > 0, got "
              + leaseDuration
              + ", "
              + renewDeadline
              + ", "
              + retryPeriod);
    }
  }
}
