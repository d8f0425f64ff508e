package dev.quartermaster.bench;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.SystemEnv;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Issue 50's table: the control plane's cost per unit of work as the fleet and the work grow by 10×
 * steps. Each step on a fresh store: {@code nodes} ready nodes of 10 GPUs, {@code 10 × nodes}
 * one-GPU tasks in workloads of 10, spread over {@code nodes / 10} quota queues in 10 cohorts
 * (quotas that fit them all), {@code nodes / 10} HTTP watchers in a process of their own (nodes'
 * agents' watches of tasks, each in its node's scope: {@link WatcherSwarm}), and every node's
 * heartbeat at the agent's 10 s period, written by a stand-in as the agent writes it (a read, then
 * the status with the new time). The agents' writes for each task are made by {@link FleetBench}'s
 * stand-in. Per step: the heartbeats alone first (writes/s, CPU per heartbeat, the share of the
 * cores they take); then apply to all Running: tasks/s, CPU per task (the whole process), store
 * transactions per task, p50/p99 from a workload's create to each of its tasks Running, {@code
 * /healthz} p99 (polled every 100 ms throughout), the heap after a full GC and resident memory;
 * last, the slope of CPU per task between steps (flat is 1.0). {@code
 * -Dqm.bench.scaleNodes=100,1000,10000}; on a 3-member etcd with {@code -Dqm.bench.scaleStore=etcd}
 * (its members' CPU reported apart). Each step ends with the sizes of the ledgers a write holds
 * whole ({@link LedgerSizes}).
 */
final class ScaleBench implements Bench.Benchmark {
  private static final List<Integer> NODES =
      Arrays.stream(System.getProperty("qm.bench.scaleNodes", "100,1000,10000").split(","))
          .map(String::strip)
          .map(Integer::parseInt)
          .toList();
  private static final int GPUS = 10;
  private static final int TASKS_PER_NODE = 10;
  private static final int TASKS_PER_WORKLOAD = 10;
  private static final int COHORTS = 10;

  /** Longer than a step may take (it gives up at 900 s). */
  private static final int START_TIMEOUT_SECONDS = 3_600;

  /** Issue 50's targets. */
  private static final double TARGET_CPU_MS_PER_TASK = 1.0;

  /**
   * Per allocation and per admission: the process's CPU times the share of its samples in the
   * allocator's and the admission controller's reconciles ({@link CpuSamples}: their decisions and
   * their writes' planning and guards, not the store's writer or the watches that carry the writes
   * to everyone else, which the CPU per task has).
   */
  private static final double TARGET_ALLOCATION_MICROS = 400;

  private static final double TARGET_ADMISSION_MICROS = 1_000;
  private static final String ALLOCATOR = "allocator";
  private static final String ADMISSION = "admission";
  private static final String ALLOCATOR_FRAME =
      "dev.quartermaster.control.allocator.Allocator.reconcile";
  private static final String ADMISSION_FRAME =
      "dev.quartermaster.control.admission.AdmissionController.sync";

  private static final double TARGET_FLAT = 1.5;
  private static final long TARGET_HEAP_MIB = 2_048;
  private static final double TARGET_HEALTHZ_P99_MS = 100;

  record Step(
      int nodes,
      int tasks,
      double tasksPerSecond,
      double cpuMsPerTask,
      double transactionsPerTask,
      double p50Seconds,
      double p99Seconds,
      double healthzP99Ms,
      double heartbeatsPerSecond,
      double cpuMicrosPerHeartbeat,
      long heapMiB,
      long residentMiB,
      double watcherCpuMsPerTask,
      double storeCpuMsPerTask,
      double allocatorCpuMicrosPerAllocation,
      double admissionCpuMicrosPerAdmission,
      LedgerSizes ledgers,
      boolean complete) {}

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "scale: nodes "
            + NODES
            + " (10 GPUs each), 10 one-GPU tasks per node, queues and watchers nodes/10, heartbeats"
            + " every 10 s; agents' writes by a stand-in; the store: "
            + ScaleStore.describe());
    // The JIT's warm-up is no step's cost: the smallest step once, uncounted.
    step(dir.resolve("scale-warmup"), NODES.getFirst(), raw, Report.QUIET);
    var steps = new ArrayList<Step>();
    for (int nodes : NODES) {
      steps.add(step(dir.resolve("scale-" + nodes), nodes, raw, report));
    }
    report.text("the table");
    for (var s : steps) {
      report.line(
          String.format(Locale.ROOT, "  %,d nodes, %,d tasks", s.nodes(), s.tasks()),
          String.format(
              Locale.ROOT,
              "%s%.0f tasks/s (%.2fx raw), CPU %.2f ms/task, allocator %.0f µs/allocation, admission"
                  + " %.0f µs/admission, %.1f txns/task, to Running p50 %.1f s"
                  + " p99 %.1f s, /healthz p99 %.0f ms, heartbeats %.0f/s at %.0f µs CPU each,"
                  + " heap %d MiB, RSS %d MiB; watchers' own CPU %.2f ms/task%s; %s",
              s.complete() ? "" : "INCOMPLETE: ",
              s.tasksPerSecond(),
              s.tasksPerSecond() / raw,
              s.cpuMsPerTask(),
              s.allocatorCpuMicrosPerAllocation(),
              s.admissionCpuMicrosPerAdmission(),
              s.transactionsPerTask(),
              s.p50Seconds(),
              s.p99Seconds(),
              s.healthzP99Ms(),
              s.heartbeatsPerSecond(),
              s.cpuMicrosPerHeartbeat(),
              s.heapMiB(),
              s.residentMiB(),
              s.watcherCpuMsPerTask(),
              ScaleStore.onEtcd()
                  ? String.format(Locale.ROOT, ", etcd's CPU %.2f ms/task", s.storeCpuMsPerTask())
                  : "",
              s.ledgers().line()));
    }
    for (int i = 1; i < steps.size(); i++) {
      var a = steps.get(i - 1);
      var b = steps.get(i);
      report.line(
          String.format(
              Locale.ROOT, "  slope of CPU per task, %,d -> %,d nodes", a.nodes(), b.nodes()),
          String.format(Locale.ROOT, "%.2fx", b.cpuMsPerTask() / a.cpuMsPerTask()));
    }
    var first = steps.getFirst();
    var last = steps.getLast();
    double flat = last.cpuMsPerTask() / first.cpuMsPerTask();
    report.line(
        "  target: CPU per task at the largest step within " + TARGET_FLAT + "x of the smallest",
        String.format(Locale.ROOT, "%s (%.2fx)", flat <= TARGET_FLAT ? "met" : "NOT met", flat));
    report.line(
        "  target: CPU per task <= " + TARGET_CPU_MS_PER_TASK + " ms at every step",
        steps.stream().allMatch(s -> s.cpuMsPerTask() <= TARGET_CPU_MS_PER_TASK)
            ? "met"
            : "NOT met");
    report.line(
        "  target: allocator <= " + (int) TARGET_ALLOCATION_MICROS + " µs CPU per allocation",
        atEveryStep(steps, Step::allocatorCpuMicrosPerAllocation, TARGET_ALLOCATION_MICROS));
    report.line(
        "  target: admission <= " + (int) TARGET_ADMISSION_MICROS + " µs CPU per admission",
        atEveryStep(steps, Step::admissionCpuMicrosPerAdmission, TARGET_ADMISSION_MICROS));
    report.line(
        "  target: heap <= " + TARGET_HEAP_MIB + " MiB at the largest step",
        last.heapMiB() <= TARGET_HEAP_MIB ? "met" : "NOT met");
    report.line(
        "  target: /healthz p99 <= " + (int) TARGET_HEALTHZ_P99_MS + " ms throughout",
        steps.stream().allMatch(s -> s.healthzP99Ms() <= TARGET_HEALTHZ_P99_MS)
            ? "met"
            : "NOT met");
  }

  /** Whether {@code figure} is at most {@code target} at every step, with each step's figure. */
  private static String atEveryStep(
      List<Step> steps, ToDoubleFunction<Step> figure, double target) {
    var each = new StringJoiner(", ", " (", ")");
    steps.forEach(
        s ->
            each.add(
                String.format(Locale.ROOT, "%,d nodes %.0f", s.nodes(), figure.applyAsDouble(s))));
    boolean met = steps.stream().allMatch(s -> figure.applyAsDouble(s) <= target);
    return (met ? "met" : "NOT met") + each;
  }

  private static Step step(Path dir, int nodes, double raw, Report report) throws Exception {
    int tasks = nodes * TASKS_PER_NODE;
    int queues = Math.max(COHORTS, nodes / 10);
    int watchers = Math.max(1, nodes / 10);
    int workloads = tasks / TASKS_PER_WORKLOAD;
    report.text(
        String.format(
            Locale.ROOT,
            "step: %,d nodes, %,d tasks in %,d workloads, %,d queues in %d cohorts, %,d watchers",
            nodes,
            tasks,
            workloads,
            queues,
            COHORTS,
            watchers));
    try (var store = ScaleStore.start(dir)) {
      var cluster = store.server();
      var api = cluster.registry();
      ControlPlaneBench.fleet(cluster, report, nodes, GPUS);
      for (int q = 0; q < queues; q++) {
        api.create(
            new Queue(
                ObjectMeta.named(queue(q)),
                new QueueSpec(
                    Optional.of("cohort-" + (q % COHORTS)),
                    Map.of("gpu", (tasks + queues - 1) / queues),
                    Map.of(),
                    Map.of(),
                    1,
                    QueueOrdering.BestEffortFIFO),
                null));
      }
      var swarm =
          WatcherSwarm.start(
              cluster.uri(),
              cluster.token(),
              watchers,
              api.list(Kinds.TASK).revision(),
              dir.resolveSibling("watchers-" + nodes + ".log"));
      swarm.awaitWatching(Duration.ofSeconds(120));
      var env = new SystemEnv();
      try (var beats = StandInBeats.start(api, env, nodes);
          var healthz = new HealthzProbe(cluster.uri())) {
        // The heartbeats alone: what they cost before there is any work.
        Thread.sleep(StandInBeats.PERIOD.toMillis()); // every node has begun beating
        long beatsBefore = beats.written();
        long cpuBefore = CpuTime.nanos();
        var window = Stopwatch.start();
        Thread.sleep(StandInBeats.PERIOD.toMillis());
        double beatSeconds = window.seconds();
        long beatCpu = CpuTime.nanos() - cpuBefore;
        long beatCount = beats.written() - beatsBefore;
        double heartbeatsPerSecond = beatCount / beatSeconds;
        double cpuPerBeat = beatCpu / 1e3 / Math.max(1, beatCount);
        report.line(
            "  heartbeats alone (" + nodes + " nodes, every 10 s)",
            String.format(
                Locale.ROOT,
                "%.0f writes/s, %.0f µs CPU each, %.1f%% of %d cores",
                heartbeatsPerSecond,
                cpuPerBeat,
                100.0 * beatCpu / (beatSeconds * 1e9 * Runtime.getRuntime().availableProcessors()),
                Runtime.getRuntime().availableProcessors()));

        var createdAt = new ConcurrentHashMap<String, Long>();
        var toRunning = new ConcurrentHashMap<String, Long>();
        var running = new CountDownLatch(tasks);
        try (var controllers = ControlPlaneBench.startControllers(cluster);
            var agents =
                StandInAgents.start(
                    api,
                    env,
                    t -> {
                      var at = createdAt.get(t.metadata().labels().get(Labels.WORKLOAD));
                      if (at != null) {
                        toRunning.put(t.metadata().name(), System.nanoTime() - at);
                      }
                      running.countDown();
                    })) {
          var census = WriteCensus.watch(cluster.store());
          var sampled =
              CpuSamples.start(Map.of(ALLOCATOR, ALLOCATOR_FRAME, ADMISSION, ADMISSION_FRAME));
          healthz.start();
          var clock = Stopwatch.start();
          long cpu = CpuTime.nanos();
          long watcherCpu = swarm.cpuNanos();
          long storeCpu = store.storeCpuNanos();
          ControlPlaneBench.parallel(
              workloads,
              i -> {
                var name = "s-" + i;
                var w = Workloads.oneGpuEach(name, TASKS_PER_WORKLOAD);
                // Every workload is admitted at once, and the last waits for all the other tasks: a
                // start timeout shorter than the whole step would evict the slowest (a run on a
                // busy
                // machine did, at 300 s) and measure the timeouts, not the placement.
                var spec =
                    w.spec()
                        .inQueue(queue(i % queues), Optional.empty())
                        .withStartTimeout(START_TIMEOUT_SECONDS);
                createdAt.put(name, System.nanoTime());
                return api.create(
                    new dev.quartermaster.api.workload.Workload(w.metadata(), spec, w.status()));
              });
          boolean done = false;
          for (int waited = 0; waited < 900 && !done; waited += 10) {
            done = running.await(10, TimeUnit.SECONDS);
            if (!done) {
              report.line(
                  String.format(Locale.ROOT, "    after %d s", waited + 10),
                  (tasks - running.getCount()) + " Running");
            }
          }
          double seconds = clock.seconds();
          long used = CpuTime.nanos() - cpu;
          long watchersUsed = swarm.cpuNanos() - watcherCpu;
          long storeUsed = store.storeCpuNanos() - storeCpu;
          healthz.stop();
          census.close();
          sampled.close();
          long ran = tasks - running.getCount();
          var waits = toRunning.values().stream().map(n -> n / 1e9).toList();
          var step =
              new Step(
                  nodes,
                  tasks,
                  ran / seconds,
                  used / 1e6 / Math.max(1, ran),
                  census.transactions() / (double) Math.max(1, ran),
                  Stats.quantile(waits, 0.5),
                  Stats.quantile(waits, 0.99),
                  healthz.p99Millis(),
                  heartbeatsPerSecond,
                  cpuPerBeat,
                  Memory.heapAfterGcMiB(),
                  Memory.residentMiB(),
                  watchersUsed / 1e6 / Math.max(1, ran),
                  storeUsed / 1e6 / Math.max(1, ran),
                  // One one-GPU claim per task, one admission per workload.
                  sampled.share(ALLOCATOR) * used / 1e3 / Math.max(1, ran),
                  sampled.share(ADMISSION) * used / 1e3 / workloads,
                  LedgerSizes.of(api),
                  done);
          report.line(
              "  apply to all Running" + (done ? "" : " (INCOMPLETE)"),
              String.format(
                  Locale.ROOT,
                  "%.0f tasks/s in %.1f s, CPU %.2f ms per task (heartbeats included), %.1f"
                      + " transactions per task",
                  step.tasksPerSecond(),
                  seconds,
                  step.cpuMsPerTask(),
                  step.transactionsPerTask()));
          report.line("  object writes per task, by kind", census.perKind(tasks));
          report.line(
              "  allocator and admission (their share of " + sampled.samples() + " CPU samples)",
              String.format(
                  Locale.ROOT,
                  "allocator %.0f%%, %.0f µs per allocation; admission %.0f%%, %.0f µs per"
                      + " admitted workload",
                  100 * sampled.share(ALLOCATOR),
                  step.allocatorCpuMicrosPerAllocation(),
                  100 * sampled.share(ADMISSION),
                  step.admissionCpuMicrosPerAdmission()));
          report.line("  ledgers", step.ledgers().line());
          if (ScaleStore.onEtcd()) {
            report.line(
                "  etcd's own CPU (its " + ScaleStore.ETCD_MEMBERS + " members)",
                String.format(Locale.ROOT, "%.2f ms per task", step.storeCpuMsPerTask()));
          }
          return step;
        } finally {
          swarm.close();
        }
      }
    }
  }

  private static String queue(int q) {
    return "team-" + q;
  }

  /** GET /healthz every 100 ms on its own connection; the p99 of the answers' times. */
  private static final class HealthzProbe implements AutoCloseable {
    private final HttpClient client = HttpClient.newHttpClient();
    private final HttpRequest request;
    private final List<Double> millis = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopped;
    private Thread thread;

    HealthzProbe(URI base) {
      this.request =
          HttpRequest.newBuilder(base.resolve("/healthz")).timeout(Duration.ofSeconds(30)).build();
    }

    void start() {
      thread =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    while (!stopped) {
                      long start = System.nanoTime();
                      try {
                        client.send(request, HttpResponse.BodyHandlers.discarding());
                        millis.add((System.nanoTime() - start) / 1e6);
                      } catch (java.io.IOException e) {
                        millis.add((System.nanoTime() - start) / 1e6);
                      } catch (InterruptedException e) {
                        return;
                      }
                      try {
                        Thread.sleep(100);
                      } catch (InterruptedException e) {
                        return;
                      }
                    }
                  });
    }

    void stop() throws InterruptedException {
      stopped = true;
      if (thread != null) {
        thread.join();
      }
    }

    double p99Millis() {
      synchronized (millis) {
        return millis.isEmpty() ? 0 : Stats.quantile(List.copyOf(millis), 0.99);
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop();
      client.close();
    }
  }
}
