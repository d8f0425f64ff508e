package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.core.env.Env;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;

/**
 * {@code qm_evictions_total{queue,reason}}: workloads evicted, for others (reason {@code Preempted}
 * or {@code Reclaimed}) or for not running in time ({@code StartTimeout}), per the victim's queue,
 * counted when an entry turns evicted in the ledgers informer. Only evictions since this server
 * started count: the adds a restart replays are past.
 */
public final class EvictionCount implements LedgerChanges {
  private final MeterRegistry registry;
  private final Instant started;

  public EvictionCount(Env env, MeterRegistry registry) {
    this.registry = registry;
    this.started = env.now();
  }

  @Override
  public void changed(QuotaLedger old, QuotaLedger current) {
    current
        .spec()
        .newlyEvicted(old.spec())
        .forEach(
            (name, a) -> {
              var e = a.eviction().get();
              if (e.at().isBefore(started)) {
                return;
              }
              Counter.builder("qm.evictions")
                  .description("workloads evicted, by the victim's queue and why")
                  .tag("queue", a.queue())
                  .tag("reason", e.reason().name())
                  .register(registry)
                  .increment();
            });
  }
}
