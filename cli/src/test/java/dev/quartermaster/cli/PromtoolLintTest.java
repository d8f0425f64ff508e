package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QueueStatus;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.cli.metrics.AdmissionWaitTime;
import dev.quartermaster.cli.metrics.QueueCollector;
import dev.quartermaster.core.env.DeterministicEnv;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The lint that {@link MetricsUpTest} relies on really complains: a deliberately naive exposition,
 * as a hand-rolled exporter would write it (a counter without {@code _total}, a latency in
 * milliseconds), is refused, and the same metrics named by the conventions pass.
 */
class PromtoolLintTest {
  static final String NAIVE =
      """
      # HELP qm_claims_allocated claims allocated
      # TYPE qm_claims_allocated counter
      qm_claims_allocated 3
      # HELP qm_allocation_latency_milliseconds time to allocate
      # TYPE qm_allocation_latency_milliseconds gauge
      qm_allocation_latency_milliseconds 12
      """;

  static final String CONVENTIONAL =
      """
      # HELP qm_claims_allocated_total claims allocated
      # TYPE qm_claims_allocated_total counter
      qm_claims_allocated_total 3
      # HELP qm_allocation_latency_seconds time to allocate
      # TYPE qm_allocation_latency_seconds gauge
      qm_allocation_latency_seconds 0.012
      """;

  @Test
  void aCounterWithoutTotalAndAMillisecondUnitAreRefused() throws Exception {
    var promtool = Promtool.require();
    var verdict = Promtool.check(promtool, NAIVE);
    assertThat(verdict.exit()).as(verdict.output()).isNotZero();
    assertThat(verdict.output())
        .contains("qm_claims_allocated")
        .contains("_total")
        .contains("qm_allocation_latency_milliseconds");
  }

  @Test
  void theSameMetricsNamedByTheConventionsPass() throws Exception {
    var promtool = Promtool.require();
    var verdict = Promtool.check(promtool, CONVENTIONAL);
    assertThat(verdict.exit()).as(verdict.output()).isZero();
    assertThat(verdict.output()).isBlank();
  }

  /** The queue series and the admission-wait histogram, as a scrape shows them, pass the lint. */
  @Test
  void theQueueMetricsPass() throws Exception {
    var promtool = Promtool.require();
    var env = new DeterministicEnv(1);
    var meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    var queue =
        new Queue(
            ObjectMeta.named("team-b"),
            new QueueSpec(
                Optional.of("lab"),
                Map.of("gpu", 4),
                Map.of(),
                Map.of(),
                1,
                QueueOrdering.BestEffortFIFO),
            new QueueStatus(1, 1, Map.of("gpu", 4), Map.of(), Map.of()));
    meters.getPrometheusRegistry().register(new QueueCollector(() -> List.of(queue)));
    var workload =
        new Workload(ObjectMeta.named("train-b").withUid("u").withCreatedAt(env.now()), null, null);
    var waits = new AdmissionWaitTime(env, meters, n -> Optional.of(workload));
    waits.onAdd(
        new QuotaLedger(
            ObjectMeta.named("lab"),
            new QuotaLedgerSpec(
                List.of("team-b"),
                Map.of(
                    "train-b",
                    new Admitted(
                        "u",
                        "team-b",
                        Map.of("w", 1),
                        Map.of("gpu", 4),
                        0,
                        env.now().plusSeconds(3)))),
            null));
    var scrape = meters.scrape();
    assertThat(scrape)
        .contains("qm_queue_pending_workloads{queue=\"team-b\"} 1")
        .contains("qm_queue_used_devices{class=\"gpu\",queue=\"team-b\"} 4")
        .contains("qm_queue_quota_devices{class=\"gpu\",queue=\"team-b\"} 4")
        .contains("qm_queue_borrowed_devices{class=\"gpu\",queue=\"team-b\"} 0")
        .contains("qm_queue_admitted_workloads{queue=\"team-b\"} 1")
        .contains("qm_admission_wait_seconds_count{queue=\"team-b\"} 1");
    var verdict = Promtool.check(promtool, scrape);
    assertThat(verdict.exit()).as(verdict.output()).isZero();
    assertThat(verdict.output()).as(scrape).isBlank();
  }
}
