package dev.quartermaster.bench.partitions;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.sim.world.ExclusiveUse;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Runs fault schedules against one {@link LabCluster}: for each, traffic and faults together, then
 * everything healed, then the wait for the cluster to converge and the checks. The history of each
 * schedule (operations, faults, samples that broke a promise) is written to {@code
 * history-<seed>.log}; the seed replays the schedule.
 */
public final class Harness {
  /** How long after the heal every workload must be whole again (L1/L2 in the lab). */
  public static final Duration CONVERGENCE_BOUND = Duration.ofSeconds(180);

  private static final Duration SAMPLE_EVERY = Duration.ofMillis(500);

  /** One schedule's row of the report. */
  public record Result(
      long seed,
      List<String> faults,
      int operations,
      int acknowledged,
      List<String> lost,
      List<String> anomalies,
      List<String> violations,
      int samples,
      long revisionsJudged,
      Duration converged,
      boolean convergedInBound) {}

  private final LabCluster cluster;
  private final HistoryWatch storeHistory;
  private final Path dir;
  private final PrintStream progress;

  private Harness(LabCluster cluster, HistoryWatch storeHistory, Path dir, PrintStream progress) {
    this.cluster = cluster;
    this.storeHistory = storeHistory;
    this.dir = dir;
    this.progress = progress;
  }

  /** Why this machine cannot run the harness, or empty. */
  public static Optional<String> unavailable() {
    return Lab.unavailable();
  }

  /** Starts the lab and its cluster, runs {@code schedules} seeds from {@code firstSeed}. */
  public static List<Result> run(
      Path dir,
      Path qm,
      Path etcd,
      Optional<String> variant,
      long firstSeed,
      int schedules,
      PrintStream progress)
      throws Exception {
    var naive =
        variant.map(
            v ->
                NaiveVariant.named(v)
                    .orElseThrow(
                        () ->
                            new IllegalArgumentException(
                                "qm.bench.partitionVariant: no variant '"
                                    + v
                                    + "'; use one of "
                                    + NaiveVariant.names())));
    var results = new ArrayList<Result>();
    var lab = Lab.create();
    var cluster = new java.util.concurrent.atomic.AtomicReference<LabCluster>();
    var storeHistory = new java.util.concurrent.atomic.AtomicReference<HistoryWatch>();
    // Ctrl-C (or a timeout's SIGTERM) must not leave namespaces, etcd, servers, agents or task
    // processes behind: the same cleanup runs from a shutdown hook.
    var cleanup =
        new Thread(
            () -> {
              var h = storeHistory.getAndSet(null);
              if (h != null) {
                h.close();
              }
              var c = cluster.getAndSet(null);
              if (c != null) {
                c.close();
              }
              DeviceHolders.killAll(dir);
              lab.close();
            },
            "partitions-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try {
      progress.println(
          "partitions: lab "
              + lab.namespace("*")
              + " on "
              + Lab.SUBNET
              + "0/24; starting etcd x3, servers x2, agents x"
              + LabCluster.AGENTS);
      cluster.set(LabCluster.start(lab, dir, qm, etcd, naive));
      storeHistory.set(new HistoryWatch(cluster.get().etcdEndpoints()));
      var harness = new Harness(cluster.get(), storeHistory.get(), dir, progress);
      var traffic = new Traffic(cluster.get().client(), List.of(), line -> {});
      for (long seed = firstSeed; seed < firstSeed + schedules; seed++) {
        // A naive variant is shown what it breaks, every schedule.
        var first = naive.map(v -> v.everySchedule);
        results.add(harness.schedule(Schedule.draw(seed, first), traffic));
      }
    } finally {
      Runtime.getRuntime().removeShutdownHook(cleanup);
      cleanup.run();
    }
    return results;
  }

  private Result schedule(Schedule schedule, Traffic shared) throws Exception {
    var historyFile = dir.resolve("history-" + schedule.seed() + ".log");
    var started = System.nanoTime();
    java.util.function.Consumer<String> history =
        line -> {
          synchronized (this) {
            try {
              Files.writeString(
                  historyFile,
                  String.format("%8.3f %s%n", (System.nanoTime() - started) / 1e9, line),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.APPEND);
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          }
        };
    var faults =
        schedule.faults().stream()
            .map(t -> "+" + t.at().toSeconds() + "s " + t.fault().describe())
            .toList();
    progress.println("partitions: seed " + schedule.seed() + ": " + String.join("; ", faults));
    faults.forEach(f -> history.accept("scheduled " + f));
    var traffic = new Traffic(cluster.client(), cluster.eachServer(), history);
    traffic.adopt(shared);
    var violations = new LinkedHashSet<String>();
    var samples = new int[1];
    var sampling =
        Thread.ofPlatform().name("sampler").start(() -> sample(violations, samples, history));
    var random = new Random(schedule.seed());
    var generator =
        Thread.ofPlatform()
            .name("traffic")
            .start(
                () -> {
                  try {
                    traffic.run(random, started + Schedule.WINDOW.toNanos());
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
    var burst = new Random(schedule.seed() ^ 0x5eed);
    new FaultRunner(cluster, history, () -> traffic.burst(burst)).run(schedule);
    generator.join();
    var members = new ArrayList<String>();
    members.addAll(LabCluster.etcdMembers());
    members.addAll(LabCluster.servers());
    members.addAll(LabCluster.agents());
    members.addAll(LabCluster.plugins());
    new FaultRunner(cluster, history).healEverything(members);
    history.accept("healed everything");
    long healed = System.nanoTime();
    var lost = new ArrayList<String>();
    boolean converged = awaitConverged(traffic, lost, history);
    var convergedAfter = Duration.ofNanos(System.nanoTime() - healed);
    sampling.interrupt();
    sampling.join();
    shared.adopt(traffic);
    var result =
        new Result(
            schedule.seed(),
            faults,
            traffic.operations(),
            traffic.acknowledged(),
            lost,
            traffic.anomalies(),
            List.copyOf(violations),
            samples[0],
            storeHistory.judged(),
            convergedAfter,
            converged);
    history.accept("result " + result);
    return result;
  }

  /** Samples the process table and the store until interrupted; each broken promise once. */
  private void sample(
      Set<String> violations, int[] samples, java.util.function.Consumer<String> history) {
    int round = 0;
    while (!Thread.currentThread().isInterrupted()) {
      var found = new ArrayList<>(DeviceHolders.violations(DeviceHolders.scan(dir)));
      storeHistory.drain().forEach(v -> found.add("store history: " + v));
      if (round++ % 4 == 0) {
        try {
          var claims = cluster.client().list(Kinds.RESOURCE_CLAIM).items();
          var slices = cluster.client().list(Kinds.DEVICE_SLICE).items();
          ExclusiveUse.violations(claims, ExclusiveUse.bySlices(slices))
              .forEach(v -> found.add("I1 store: " + v));
          cluster
              .pluginOverlaps()
              .ifPresent(
                  n -> {
                    if (n > 0) {
                      found.add("I5 plugin: " + n + " destructive calls overlapped");
                    }
                  });
        } catch (RuntimeException e) {
          // the store did not answer: the sample is of processes only
        }
      }
      synchronized (violations) {
        samples[0]++;
        for (var v : found) {
          if (violations.add(v)) {
            history.accept("VIOLATION " + v);
          }
        }
      }
      try {
        Thread.sleep(SAMPLE_EVERY);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Waits until every workload the acknowledged answers say exists runs all its workers, and no
   * task process runs for a workload that is gone; acknowledged writes that did not survive go to
   * {@code lost}.
   */
  private boolean awaitConverged(
      Traffic traffic, List<String> lost, java.util.function.Consumer<String> history)
      throws InterruptedException {
    long deadline = System.nanoTime() + CONVERGENCE_BOUND.toNanos();
    String why = "";
    boolean checkedWrites = false;
    while (System.nanoTime() < deadline) {
      try {
        var workloads =
            cluster.client().list(Kinds.WORKLOAD).items().stream()
                .collect(Collectors.toMap(w -> w.metadata().name(), w -> w));
        if (!checkedWrites) {
          traffic
              .known()
              .forEach(
                  (name, known) -> traffic.settle(name, Optional.ofNullable(workloads.get(name))));
          traffic
              .known()
              .forEach(
                  (name, known) -> {
                    if (known == Traffic.Known.PRESENT && !workloads.containsKey(name)) {
                      lost.add(
                          "workload " + name + ": created (acknowledged), gone after the heal");
                    }
                  });
          checkedWrites = true;
        }
        var tasks = cluster.client().list(Kinds.TASK).items();
        var admitted =
            cluster.client().get(Kinds.QUOTA_LEDGER, Traffic.COHORT).stream()
                .flatMap(l -> l.spec().admitted().keySet().stream())
                .collect(Collectors.toSet());
        var holders = DeviceHolders.scan(dir);
        why = unconverged(traffic, workloads.keySet(), admitted, tasks, holders);
        if (why.isEmpty()) {
          history.accept("converged");
          return true;
        }
      } catch (RuntimeException e) {
        why = "the API: " + e.getMessage();
      }
      Thread.sleep(1_000);
    }
    history.accept("NOT converged within " + CONVERGENCE_BOUND + ": " + why);
    lost.add("not converged within " + CONVERGENCE_BOUND.toSeconds() + "s: " + why);
    return false;
  }

  /**
   * Why the cluster has not converged, or empty: a workload that exists must run all its workers,
   * unless it waits in a quota queue whose cohort has no room for it (what the admitted workloads
   * there use, and its own need, above the cohort's quota); nothing of a deleted one may remain.
   */
  private static String unconverged(
      Traffic traffic,
      Set<String> workloads,
      Set<String> admitted,
      List<Task> tasks,
      List<DeviceHolders.Holder> holders) {
    int cohortUsed =
        traffic.shapes().entrySet().stream()
            .filter(e -> admitted.contains(e.getKey()) && workloads.contains(e.getKey()))
            .filter(e -> Traffic.QUEUES.contains(e.getValue().queue()))
            .mapToInt(e -> e.getValue().replicas())
            .sum();
    for (var entry : traffic.known().entrySet()) {
      var name = entry.getKey();
      boolean present = workloads.contains(name);
      var own =
          tasks.stream().filter(t -> t.metadata().name().startsWith(name + "-workers-")).toList();
      var running = own.stream().filter(t -> t.status().phase() == TaskPhase.Running).count();
      var processes =
          holders.stream()
              .filter(h -> h.task().startsWith(name + "-workers-"))
              .map(DeviceHolders.Holder::task)
              .distinct()
              .count();
      if (present && entry.getValue() == Traffic.Known.ABSENT) {
        return name
            + ": deleted (acknowledged) but still in the store, with "
            + own.size()
            + " task(s) ("
            + running
            + " Running) and "
            + processes
            + " task process(es)";
      }
      if (present) {
        var shape = traffic.shapes().get(name);
        int replicas = shape.replicas();
        boolean waitsForQuota =
            Traffic.QUEUES.contains(shape.queue())
                && !admitted.contains(name)
                && cohortUsed + replicas > Traffic.QUOTA * Traffic.QUEUES.size();
        if (waitsForQuota) {
          continue;
        }
        if (running != replicas || processes != replicas) {
          return name
              + ": "
              + running
              + " of "
              + replicas
              + " workers Running, processes of "
              + processes;
        }
      } else if (!own.isEmpty() || processes > 0) {
        return name
            + " is gone but "
            + own.size()
            + " task(s) and "
            + processes
            + " task process(es) remain";
      }
    }
    return "";
  }
}
