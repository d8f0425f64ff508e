package dev.quartermaster.agent.health;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * How faults turn into health.
 *
 * @param cleanPeriod how long a device must go without a fault to be healthy again: never
 *     "unhealthy forever", the failure users of NVIDIA's plugin keep reporting
 * @param ignoredXids XIDs caused by applications rather than the GPU; they change nothing
 */
public record HealthPolicy(Duration cleanPeriod, Set<Long> ignoredXids) {
  /**
   * NVIDIA's device plugin's built-in "application" XIDs (13, 31, 43, 45, 68, 109). The XID catalog
   * disputes some (NVIDIA/k8s-device-plugin#1974), which is why the list is configurable.
   */
  public static final Set<Long> APPLICATION_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

  public HealthPolicy {
    Objects.requireNonNull(cleanPeriod, "cleanPeriod");
    if (cleanPeriod.isNegative() || cleanPeriod.isZero()) {
      throw new IllegalArgumentException("clean period must be positive: " + cleanPeriod);
    }
    ignoredXids = Set.copyOf(ignoredXids);
  }

  public static HealthPolicy defaults(Duration cleanPeriod) {
    return new HealthPolicy(cleanPeriod, APPLICATION_XIDS);
  }
}
