package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;

/**
 * {@code qm_evictions_total{queue,reason}}: workloads evicted for others (reason {@code Preempted}
 * or {@code Reclaimed}), per the victim's queue, counted when an entry turns evicted in the ledgers
 * informer. Only evictions since this server started count: the adds a restart replays are past.
 */
public final class EvictionCount implements EventHandler<QuotaLedger> {
  private final MeterRegistry registry;
  private final Instant started;

  public EvictionCount(Env env, MeterRegistry registry) {
    this.registry = registry;
    this.started = env.now();
  }

  @Override
  public void onAdd(QuotaLedger ledger) {
    record(new QuotaLedger(null, null, null), ledger);
  }

  @Override
  public void onUpdate(QuotaLedger old, QuotaLedger current) {
    record(old, current);
  }

  private void record(QuotaLedger old, QuotaLedger current) {
    current
        .spec()
        .admitted()
        .forEach(
            (name, a) -> {
              var was = old.spec().admitted().get(name);
              if (a.eviction().isEmpty() || (was != null && was.evicting())) {
                return;
              }
              var e = a.eviction().get();
              if (e.at().isBefore(started)) {
                return;
              }
              Counter.builder("qm.evictions")
                  .description("workloads evicted for others, by the victim's queue and why")
                  .tag("queue", a.queue())
                  .tag("reason", e.reason().name())
                  .register(registry)
                  .increment();
            });
  }
}
