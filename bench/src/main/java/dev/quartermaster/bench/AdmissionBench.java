package dev.quartermaster.bench;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.admission.AdmissionController;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Admission at Kueue's own baseline size: 15,000 workloads of mixed sizes (1, 4 or 8 GPUs) over 30
 * queues, 6 cohorts of 5, created by 32 writers while the admission controller runs; quotas fit
 * them all, so the figure is admission itself (Kueue's baseline, ~351 s for its run, includes the
 * workloads' runtimes and so is no like-for-like rate: the point is that admission is batched, many
 * workloads of many queues per ledger write, not one per queue per cycle). Only the admission
 * controller runs: no tasks are made.
 */
final class AdmissionBench implements Bench.Benchmark {
  private static final int WORKLOADS = Integer.getInteger("qm.bench.admissionWorkloads", 15_000);
  private static final int COHORTS = Integer.getInteger("qm.bench.admissionCohorts", 6);
  private static final int QUEUES_PER_COHORT =
      Integer.getInteger("qm.bench.admissionQueuesPerCohort", 5);
  private static final int[] SIZES = {1, 4, 8};

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "admission: "
            + WORKLOADS
            + " workloads over "
            + COHORTS * QUEUES_PER_COHORT
            + " queues ("
            + COHORTS
            + " cohorts x "
            + QUEUES_PER_COHORT
            + ")");
    try (var cluster = LocalServer.start(dir.resolve("admission"))) {
      var api = cluster.registry();
      for (int c = 0; c < COHORTS; c++) {
        for (int q = 0; q < QUEUES_PER_COHORT; q++) {
          api.create(
              new Queue(
                  ObjectMeta.named(queue(c, q)),
                  new QueueSpec(
                      Optional.of("cohort-" + c),
                      Map.of("gpu", WORKLOADS * 8 / (COHORTS * QUEUES_PER_COHORT) + 8),
                      Map.of(),
                      Map.of(),
                      1,
                      QueueOrdering.BestEffortFIFO),
                  null));
        }
      }
      var env = new SystemEnv();
      var informers = new Informers(env, api);
      var controller = new AdmissionController(env, api, informers, EventRecorder.NONE);
      informers.start();
      while (!informers.hasSynced()) {
        Thread.sleep(10);
      }
      controller.loop().start();
      long ledgerWritesBefore = writesOfLedgers(cluster);
      var clock = Stopwatch.start();
      long cpu = CpuTime.nanos();
      ControlPlaneBench.parallel(WORKLOADS, i -> api.create(workload(i)));
      double created = clock.seconds();
      long admitted = 0;
      while (clock.seconds() < 600 && (admitted = admitted(api)) < WORKLOADS) {
        Thread.sleep(20);
      }
      double seconds = clock.seconds();
      long used = CpuTime.nanos() - cpu;
      long ledgerWrites = writesOfLedgers(cluster) - ledgerWritesBefore;
      controller.loop().stop();
      informers.stop();
      report.line("workloads created (32 writers)", String.format("%.1f s", created));
      report.figure(
          "workloads/s, first create to last admission"
              + (admitted == WORKLOADS ? "" : " (INCOMPLETE: " + admitted + " admitted)"),
          admitted / seconds,
          "workloads/s",
          raw);
      report.line("  time to all " + WORKLOADS + " admitted", String.format("%.1f s", seconds));
      report.line(
          "  Kueue's baseline (15,000 over 30 queues, runtimes included)",
          "~351 s; its ceiling: one admission per queue per cycle (kueue #14477)");
      report.line(
          "  ledger writes; workloads admitted per write",
          ledgerWrites
              + "; "
              + String.format("%.1f", admitted / (double) Math.max(1, ledgerWrites)));
      report.line(
          "  CPU per admission (whole process: store, API, informers, controller, writers)",
          String.format("%.0f µs", used / 1e3 / Math.max(1, admitted)));
      waitsBySize(api, report);
    }
  }

  /**
   * Per size class, a workload's creation to its admission (its ledger entry's time): p50 and p99,
   * as Kueue reports its time to admission.
   */
  private static void waitsBySize(dev.quartermaster.api.client.ApiClient api, Report report) {
    var admittedAt = new java.util.HashMap<String, java.time.Instant>();
    api.list(Kinds.QUOTA_LEDGER)
        .items()
        .forEach(l -> l.spec().admitted().forEach((n, a) -> admittedAt.put(n, a.at())));
    var bySize = new java.util.TreeMap<Integer, java.util.List<Double>>();
    for (var w : api.list(Kinds.WORKLOAD).items()) {
      var at = admittedAt.get(w.metadata().name());
      var created = w.metadata().createdAt();
      if (at == null || created.isEmpty()) {
        continue;
      }
      int gpus = dev.quartermaster.api.queue.Demand.of(w.spec()).getOrDefault("gpu", 0);
      bySize
          .computeIfAbsent(gpus, k -> new java.util.ArrayList<>())
          .add(java.time.Duration.between(created.get(), at).toNanos() / 1e9);
    }
    bySize.forEach(
        (gpus, waits) ->
            report.line(
                "  time to admission, " + gpus + "-GPU workloads (" + waits.size() + ")",
                String.format(
                    "p50 %.2f s, p99 %.2f s",
                    Stats.quantile(waits, 0.5), Stats.quantile(waits, 0.99))));
  }

  private static String queue(int cohort, int q) {
    return "q-" + cohort + "-" + q;
  }

  private static Workload workload(int i) {
    int gpus = SIZES[i % SIZES.length];
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
            "w",
            1,
            new TaskTemplate(
                List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of()),
            List.of(claim),
            RestartPolicy.Never);
    int q = i % (COHORTS * QUEUES_PER_COHORT);
    return new Workload(
        ObjectMeta.named("w-" + i),
        new WorkloadSpec(List.of(group), Optional.empty())
            .inQueue(queue(q / QUEUES_PER_COHORT, q % QUEUES_PER_COHORT), Optional.empty()),
        null);
  }

  private static long admitted(dev.quartermaster.api.client.ApiClient api) {
    return api.list(Kinds.QUOTA_LEDGER).items().stream()
        .mapToLong(l -> l.spec().admitted().size())
        .sum();
  }

  /** The ledgers' revisions summed: each write bumps its ledger's generation. */
  private static long writesOfLedgers(LocalServer cluster) {
    return cluster.registry().list(Kinds.QUOTA_LEDGER).items().stream()
        .mapToLong(l -> l.metadata().generation())
        .sum();
  }
}
