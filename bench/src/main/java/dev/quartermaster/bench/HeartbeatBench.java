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
            + " s, written through the registry as the agent writes them");
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
          measure(report, label + ", alone", beats, store);
          try (var controllers = ControlPlaneBench.startControllers(cluster)) {
            Thread.sleep(StandInBeats.PERIOD.toMillis());
            measure(report, label + ", controllers running", beats, store);
          }
        }
      }
    }
  }

  private static void measure(Report report, String what, StandInBeats beats, SqliteStore store)
      throws InterruptedException {
    long written = beats.written();
    long requests = beats.requests();
    long commits = store.commits();
    long cpu = CpuTime.nanos();
    long writer = writerNanos();
    var window = Stopwatch.start();
    Thread.sleep(WINDOW.toMillis());
    double seconds = window.seconds();
    long count = Math.max(1, beats.written() - written);
    long used = CpuTime.nanos() - cpu;
    report.line(
        "  " + what,
        String.format(
            Locale.ROOT,
            "%.0f beats/s, %.0f µs CPU each (%.1f%% of %d cores); %.2f requests a beat; store"
                + " writer %.0f µs each; %.1f beats a commit",
            count / seconds,
            used / 1e3 / count,
            100.0 * used / (seconds * 1e9 * Runtime.getRuntime().availableProcessors()),
            Runtime.getRuntime().availableProcessors(),
            (beats.requests() - requests) / (double) count,
            (writerNanos() - writer) / 1e3 / count,
            count / (double) Math.max(1, store.commits() - commits)));
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
