package dev.quartermaster.bench;

import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What the agents' heartbeats cost at {@code -Dqm.bench.beatNodes} nodes (10,000: 1,000 beats a
 * second; {@link StandInBeats}: the agent's own status writer and slice publisher), before and
 * after the controllers start: beats a second, CPU per beat (the whole process), the share of the
 * cores, API requests per beat, the store writer thread's CPU per beat and beats per SQLite commit.
 * Twice: with beats committed at once, each alone (the store's wait for company off), and as the
 * server runs them, waiting up to {@link SqliteStore.Options#MAY_WAIT} to share a commit.
 */
final class HeartbeatBench implements Bench.Benchmark {
  private static final int NODES = Integer.getInteger("qm.bench.beatNodes", 10_000);
  private static final Duration WINDOW = StandInBeats.PERIOD;

  /**
   * The store's waits to compare, in milliseconds, in this order ({@code -Dqm.bench.beatWaits}):
   * the later runs in a warmer JVM, so swap them to see what the order gives.
   */
  private static final List<Duration> WAITS =
      Arrays.stream(
              System.getProperty(
                      "qm.bench.beatWaits", "0," + SqliteStore.Options.MAY_WAIT.toMillis())
                  .split(","))
          .map(ms -> Duration.ofMillis(Long.parseLong(ms.strip())))
          .toList();

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "heartbeats: "
            + NODES
            + " nodes, every "
            + StandInBeats.PERIOD.toSeconds()
            + " s, written as the agent writes them: through the registry in process, then over"
            + " HTTP");
    for (var wait : WAITS) {
      var where = dir.resolve("beats-" + wait.toMillis());
      var store =
          SqliteStore.open(
              where.resolve("store.db"), SqliteStore.Options.defaults().withMayWait(wait));
      var label = wait.isZero() ? "each beat its own commit" : "waiting " + wait.toMillis() + " ms";
      try (var cluster = LocalServer.start(where, store)) {
        ControlPlaneBench.fleet(cluster, Report.QUIET, NODES, 8);
        try (var beats = StandInBeats.start(cluster.registry(), new SystemEnv(), NODES)) {
          Thread.sleep(StandInBeats.PERIOD.toMillis()); // every node has begun beating
          Counts counts = () -> new long[] {beats.written(), beats.requests()};
          measure(report, label + ", alone", counts, store, () -> 0);
          try (var controllers = ControlPlaneBench.startControllers(cluster)) {
            Thread.sleep(StandInBeats.PERIOD.toMillis());
            measure(report, label + ", controllers running", counts, store, () -> 0);
          }
        }
      }
    }
    overHttp(
        dir.resolve("beats-http-before"), report, Duration.ZERO, StandInBeats.Style.READ_EACH_TIME);
    overHttp(
        dir.resolve("beats-http"), report, SqliteStore.Options.MAY_WAIT, StandInBeats.Style.AGENT);
  }

  /**
   * As the agents beat: over HTTP, from a process of their own ({@link BeatSwarm}); the server's
   * CPU per beat, the swarm's apart. Before (the naive beat's three requests, each beat its own
   * commit) and now.
   */
  private static void overHttp(Path where, Report report, Duration wait, StandInBeats.Style style)
      throws Exception {
    var store =
        SqliteStore.open(
            where.resolve("store.db"), SqliteStore.Options.defaults().withMayWait(wait));
    try (var cluster = LocalServer.start(where, store)) {
      ControlPlaneBench.fleet(cluster, Report.QUIET, NODES, 8);
      try (var swarm =
          BeatSwarm.start(
              cluster.uri(), cluster.token(), NODES, style, where.resolve("swarm.log"))) {
        while (swarm.counts()[0] == 0) {
          Thread.sleep(100);
        }
        Thread.sleep(StandInBeats.PERIOD.toMillis()); // every node has begun beating
        var label =
            style == StandInBeats.Style.AGENT
                ? "over HTTP, the agent's beat, waiting " + wait.toMillis() + " ms"
                : "over HTTP, the naive beat (3 requests), each its own commit";
        measure(report, label + ", alone", swarm::counts, store, swarm::cpuNanos);
        try (var controllers = ControlPlaneBench.startControllers(cluster)) {
          Thread.sleep(StandInBeats.PERIOD.toMillis());
          measure(report, label + ", controllers running", swarm::counts, store, swarm::cpuNanos);
        }
      }
    }
  }

  /** Beats written and requests made so far. */
  private interface Counts {
    long[] get() throws java.io.IOException;
  }

  private static void measure(
      Report report,
      String what,
      Counts beats,
      SqliteStore store,
      java.util.function.LongSupplier clientsCpu)
      throws Exception {
    var start = beats.get();
    long written = start[0];
    long requests = start[1];
    long clients = clientsCpu.getAsLong();
    long commits = store.commits();
    long cpu = CpuTime.nanos();
    long writer = writerNanos();
    var window = Stopwatch.start();
    Thread.sleep(WINDOW.toMillis());
    double seconds = window.seconds();
    var end = beats.get();
    long count = Math.max(1, end[0] - written);
    long used = CpuTime.nanos() - cpu;
    long clientsUsed = clientsCpu.getAsLong() - clients;
    report.line(
        "  " + what,
        String.format(
            Locale.ROOT,
            "%.0f beats/s, %.0f µs CPU each (%.1f%% of %d cores); %.2f requests a beat; store"
                + " writer %.0f µs each; %.1f beats a commit%s",
            count / seconds,
            used / 1e3 / count,
            100.0 * used / (seconds * 1e9 * Runtime.getRuntime().availableProcessors()),
            Runtime.getRuntime().availableProcessors(),
            (end[1] - requests) / (double) count,
            (writerNanos() - writer) / 1e3 / count,
            count / (double) Math.max(1, store.commits() - commits),
            clientsUsed == 0
                ? ""
                : String.format(
                    Locale.ROOT, "; the agents' side %.0f µs each", clientsUsed / 1e3 / count)));
  }

  /** CPU of the store's writer thread so far. */
  private static long writerNanos() {
    var threads = ManagementFactory.getThreadMXBean();
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("qm-store-writer"))
        .mapToLong(t -> Math.max(0, threads.getThreadCpuTime(t.threadId())))
        .sum();
  }
}
