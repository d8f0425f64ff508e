package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /metrics} of a real {@code qm up} with the README's training workload in it: Prometheus's
 * {@code promtool check metrics} accepts the scrape without a lint complaint, and the cluster
 * series say what the cluster holds: 5 tasks Running, 4 claims prepared on 4 of the 8 simulated
 * GPUs, both nodes ready, each allocation timed, the controllers' work counted, and the in-process
 * agents' prepares timed and their ledger commits counted, and a watcher's changes timed.
 */
@Timeout(300)
class MetricsUpTest {
  static final Duration BOUND = Duration.ofSeconds(90);

  @Test
  void aScrapeOfARunningClusterPassesPromtoolAndCountsWhatTheClusterHolds() throws Exception {
    var promtool = Promtool.require();
    try (var up = UpProcess.start("qmm")) {
      // A watcher, as a dashboard or `qm get -w` would be: the changes it is sent are timed
      // (fan-out lag).
      var seen = new java.util.concurrent.atomic.AtomicInteger();
      var watch =
          up.api()
              .watch(
                  Kinds.TASK,
                  up.api().list(Kinds.TASK).revision(),
                  new WatchHandler<Task>() {
                    @Override
                    public void onEvent(WatchEvent<Task> event) {
                      seen.incrementAndGet();
                    }

                    @Override
                    public void onGone(long compactedRevision) {}
                  });
      var out = new StringWriter();
      assertThat(up.cli(out, "apply", "-f", "examples/training.yaml")).as(out.toString()).isZero();
      up.await(
          "the 5 tasks of workload training Running",
          BOUND,
          () ->
              up.api().list(Kinds.TASK).items().stream()
                      .filter(t -> t.status().phase() == TaskPhase.Running)
                      .count()
                  == 5);

      up.await("the watcher was sent the tasks' changes", BOUND, () -> seen.get() >= 5);

      // The series come from the server's caches, which may trail the API by a watch event: await
      // them.
      var http = HttpClient.newHttpClient();
      var request = HttpRequest.newBuilder(up.uri().resolve("/metrics")).build();
      var last = new Scrape[] {Scrape.parse("")};
      up.await(
          "the scrape shows 5 tasks Running and 4 claims prepared",
          BOUND,
          () -> {
            try {
              last[0] =
                  Scrape.parse(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
            return last[0].value("qm_tasks", Map.of("phase", "Running")) == 5
                && last[0].value("qm_claims", Map.of("phase", "prepared")) == 4;
          });
      var scrape = last[0];
      watch.close();

      var verdict = Promtool.check(promtool, scrape.text());
      assertThat(verdict.exit()).as(verdict.output()).isZero();
      assertThat(verdict.output()).as("promtool's lint").isBlank();

      assertThat(scrape.value("qm_tasks", Map.of("phase", "Pending"))).isZero();
      assertThat(scrape.value("qm_claims", Map.of("phase", "pending"))).isZero();
      assertThat(scrape.value("qm_devices", Map.of("class", "gpu", "state", "prepared")))
          .isEqualTo(4);
      assertThat(scrape.value("qm_devices", Map.of("class", "gpu", "state", "free"))).isEqualTo(4);
      assertThat(scrape.value("qm_devices", Map.of("class", "gpu", "state", "allocated"))).isZero();
      assertThat(scrape.value("qm_devices", Map.of("class", "gpu", "state", "unhealthy"))).isZero();
      assertThat(scrape.value("qm_devices", Map.of("node", "node-1", "class", "gpu"))).isEqualTo(4);
      assertThat(scrape.value("qm_nodes", Map.of("condition", "DevicesReady", "status", "True")))
          .isEqualTo(2);
      assertThat(scrape.value("qm_nodes", Map.of("condition", "AgentReady", "status", "False")))
          .isZero();
      assertThat(scrape.value("qm_claim_allocation_seconds_count", Map.of())).isEqualTo(4);
      assertThat(
              scrape.value(
                  "qm_controller_reconciles_total",
                  Map.of("controller", "allocator", "result", "done")))
          .isPositive();
      assertThat(
              scrape.value(
                  "qm_controller_reconcile_seconds_count", Map.of("controller", "scheduler")))
          .isPositive();
      assertThat(scrape.value("qm_controller_queue_depth", Map.of("controller", "workloads")))
          .isNotNegative();
      // In-process agents: every claim was prepared at least once (a resync may prepare again,
      // idempotently).
      assertThat(scrape.value("qm_agent_prepare_seconds_count", Map.of("outcome", "prepared")))
          .isGreaterThanOrEqualTo(4);
      assertThat(scrape.value("qm_agent_ledger_commits_total", Map.of("node", "node-1")))
          .isPositive();
      assertThat(scrape.value("qm_agent_ledger_commits_total", Map.of("node", "node-2")))
          .isPositive();
      assertThat(scrape.value("qm_watch_fanout_seconds_count", Map.of())).isGreaterThanOrEqualTo(5);
      // training went through the default queue: admitted, its wait measured.
      assertThat(scrape.value("qm_queue_admitted_workloads", Map.of("queue", "default")))
          .isEqualTo(1);
      assertThat(scrape.value("qm_queue_pending_workloads", Map.of("queue", "default"))).isZero();
      assertThat(scrape.value("qm_admission_wait_seconds_count", Map.of("queue", "default")))
          .isEqualTo(1);
      assertThat(scrape.text())
          .contains(
              "qm_controller_reconcile_seconds_bucket{controller=\"allocator\",le=\"0.001\"}");
      up.passed();
    }
  }
}
