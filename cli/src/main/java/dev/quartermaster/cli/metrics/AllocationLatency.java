package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * {@code qm_claim_allocation_seconds}: from a claim's creation to the moment this server's cache
 * sees it allocated — what a user waits, watch delay included. Measured on the claims informer, so
 * every replica measures (not only the leader), and only on the update that allocates: the adds a
 * restart replays are claims allocated long ago and would be counted again. The clock is the
 * server's, as is {@code createdAt}; across replicas on etcd their clocks' skew adds in (clamped at
 * 0).
 */
public final class AllocationLatency implements EventHandler<ResourceClaim> {
  /**
   * From a free GPU found at once (tens of ms) to a queue of claims waiting for capacity (minutes).
   */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(10),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(5),
    Duration.ofSeconds(15),
    Duration.ofSeconds(60),
    Duration.ofMinutes(5),
    Duration.ofMinutes(30)
  };

  private final Env env;
  private final Timer timer;

  public AllocationLatency(Env env, MeterRegistry registry) {
    this.env = env;
    this.timer =
        Timer.builder("qm.claim.allocation")
            .description("time from a claim's creation to its allocation")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
  }

  @Override
  public void onUpdate(ResourceClaim old, ResourceClaim current) {
    if (old.status().allocation().isPresent() || current.status().allocation().isEmpty()) {
      return;
    }
    current
        .metadata()
        .createdAt()
        .ifPresent(
            created -> {
              var waited = Duration.between(created, env.now());
              timer.record(waited.isNegative() ? Duration.ZERO : waited);
            });
  }
}
