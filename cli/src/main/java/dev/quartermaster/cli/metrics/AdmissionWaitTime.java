package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.core.env.Env;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code qm_admission_wait_seconds{queue}}: from a workload's creation to its admission (its ledger
 * entry's {@code at}), recorded when an entry appears in the ledgers informer. Only entries
 * admitted since this server started count: the adds a restart replays are admissions long past. A
 * workload admitted again larger (a scale-up) keeps its uid and is not counted again.
 */
public final class AdmissionWaitTime implements LedgerChanges {
  private final MeterRegistry registry;
  private final Function<String, Optional<Workload>> workloads;
  private final Instant started;

  /**
   * @param workloads the workload of a name, as the cache has it
   */
  public AdmissionWaitTime(
      Env env, MeterRegistry registry, Function<String, Optional<Workload>> workloads) {
    this.registry = registry;
    this.workloads = workloads;
    this.started = env.now();
  }

  @Override
  public void changed(QuotaLedger old, QuotaLedger current) {
    var before = old.spec().admitted();
    current
        .spec()
        .admitted()
        .forEach(
            (name, a) -> {
              var was = before.get(name);
              if ((was != null && was.uid().equals(a.uid())) || a.at().isBefore(started)) {
                return;
              }
              workloads
                  .apply(name)
                  .filter(w -> w.metadata().uid().equals(a.uid()))
                  .flatMap(w -> w.metadata().createdAt())
                  .ifPresent(
                      created -> {
                        var waited = Duration.between(created, a.at());
                        timer(a.queue()).record(waited.isNegative() ? Duration.ZERO : waited);
                      });
            });
  }

  private Timer timer(String queue) {
    return Timer.builder("qm.admission.wait")
        .description("time a workload waited in its queue, from its creation to its admission")
        .tag("queue", queue)
        .serviceLevelObjectives(GangWaitTime.BUCKETS)
        .register(registry);
  }
}
