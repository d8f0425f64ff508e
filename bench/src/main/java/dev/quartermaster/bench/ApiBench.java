package dev.quartermaster.bench;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.concurrent.Executors;

/**
 * Creates per second through the whole stack: HTTP client, server, registry, SQLite; and, beside
 * the single client, the same creates on the registry in-process, so the HTTP share is visible.
 * Each figure follows uncounted warm-up creates on the same server, in rounds until the JIT's share
 * of a round's CPU falls to a tenth ({@link #warmUp}), as the e2e bench's warm-up does: a server
 * runs for days, and on 2 cores the JIT compiles this path for 20,000 creates and more. A rule of
 * "the rate stopped rising" stopped after 3,000 to 5,000 on this noisy box, with the JIT still at a
 * third of the CPU, and the figure moved by a third from run to run. The single client's figure is
 * then the median of {@value #ROUNDS} rounds, with their range.
 */
final class ApiBench implements Bench.Benchmark {
  private static final int WARM_UP_ROUND = 1_000;
  private static final int WARM_UP_MOST = 40_000;

  /** The JIT's share of a warm-up round's CPU at which the path counts as compiled. */
  private static final double WARM_UP_SETTLED_JIT = 0.10;

  private static final int ROUND = 2_000;
  private static final int ROUNDS = 3;

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("API over HTTP (create Node objects)");
    try (var cluster = LocalServer.start(dir.resolve("registry-1"))) {
      report.text("  " + warmUp(cluster.registry()));
      var rates = rounds(cluster.registry());
      report.figure(
          "registry creates/s in-process, 1 caller (no HTTP)", median(rates), "creates/s", raw);
      report.line("  " + ROUNDS + " rounds of " + ROUND + ": median (min-max)", range(rates));
    }
    try (var cluster = LocalServer.start(dir.resolve("api-1"));
        var api = new HttpApiClient(cluster.uri(), cluster.token())) {
      // One client as a script or the CLI is one: sequential calls from a plain thread, on one kept
      // connection.
      report.text("  " + warmUp(api));
      var rates = rounds(api);
      double rate = median(rates);
      report.figure("API creates/s over HTTP, 1 client", rate, "creates/s", raw);
      report.line("  " + ROUNDS + " rounds of " + ROUND + ": median (min-max)", range(rates));
      // Issue 13: one client's creates within 2x of the raw commit rate.
      report.target("1 client's creates/s (half the raw commit rate)", rate, raw / 2);
    }
    int clients = 32;
    try (var cluster = LocalServer.start(dir.resolve("api-" + clients))) {
      int perClient = 4_000 / clients;
      try (var api = new HttpApiClient(cluster.uri(), cluster.token())) {
        warmUp(api);
      }
      var watch = Stopwatch.start();
      try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
        var futures = new ArrayList<java.util.concurrent.Future<?>>();
        for (int c = 0; c < clients; c++) {
          int client = c;
          futures.add(
              pool.submit(
                  () -> {
                    try (var api = new HttpApiClient(cluster.uri(), cluster.token())) {
                      creates(api, "n-" + client, perClient);
                    }
                    return null;
                  }));
        }
        for (var f : futures) {
          f.get();
        }
      }
      report.figure(
          "API creates/s over HTTP, " + clients + " clients (virtual threads)",
          perClient * clients / watch.seconds(),
          "creates/s",
          raw);
    }
  }

  /**
   * Creates in rounds of {@value #WARM_UP_ROUND} until the JIT's share of a round's CPU is at most
   * {@link #WARM_UP_SETTLED_JIT}, at most {@value #WARM_UP_MOST}; says how far it went.
   */
  private static String warmUp(ApiClient api) {
    int done = 0;
    CpuTime.Jit jit;
    do {
      long cpuBefore = CpuTime.nanos();
      long jitBefore = CpuTime.jitMillis();
      creates(api, "w" + done, WARM_UP_ROUND);
      done += WARM_UP_ROUND;
      jit = CpuTime.jitSince(jitBefore, cpuBefore);
    } while (jit.share() > WARM_UP_SETTLED_JIT && done < WARM_UP_MOST);
    return String.format(
        java.util.Locale.ROOT,
        "warmed up after %,d creates (the JIT's share of the last %,d: %.0f %%)",
        done,
        WARM_UP_ROUND,
        100 * jit.share());
  }

  private static double[] rounds(ApiClient api) {
    var rates = new double[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
      var watch = Stopwatch.start();
      creates(api, "m" + r, ROUND);
      rates[r] = ROUND / watch.seconds();
    }
    java.util.Arrays.sort(rates);
    return rates;
  }

  private static double median(double[] sorted) {
    return sorted[sorted.length / 2];
  }

  private static String range(double[] sorted) {
    return String.format(
        java.util.Locale.ROOT,
        "%.0f (%.0f-%.0f) creates/s",
        median(sorted),
        sorted[0],
        sorted[sorted.length - 1]);
  }

  private static void creates(ApiClient api, String prefix, int count) {
    for (int i = 0; i < count; i++) {
      api.create(new Node(ObjectMeta.named(prefix + "-" + i), NodeSpec.EMPTY, NodeStatus.EMPTY));
    }
  }
}
