package dev.quartermaster.bench;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.bench.http.BenchClients;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The same calls through {@link HttpApiClient} over its own kept connections and over Apache
 * HttpClient 5 (classic, pooled), against one server in one run: GET one object, LIST a kind, PUT a
 * status, and GETs from several callers sharing one client. The two alternate round by round (A,B
 * then B,A), so a busy spell of the machine falls on both; each round's ratio is taken between its
 * two halves, and the median of those ratios is printed beside the median rates. CPU per call is
 * the calling thread's (both clients do all their work on it) and the whole process's (the server's
 * too). Watches are not compared: both sides read them with the JDK's client. Last, what each costs
 * a command's start ({@link FirstCall}). {@code KeptConnection}'s doc says what these decided.
 */
final class HttpClientBench implements Bench.Benchmark {
  private static final int NODES = 50;
  private static final int ROUNDS = Integer.getInteger("qm.bench.clientRounds", 21);
  private static final int WARM_UP_MOST = 20;
  private static final double WARM_UP_SETTLED_JIT = 0.10;
  private static final int CALLERS = 8;
  private static final int FIRST_CALLS = Integer.getInteger("qm.bench.firstCalls", 11);

  /** One kind of call, {@code count} of them a round, through one client. */
  private record Workload(String name, int count, Calls calls) {}

  @FunctionalInterface
  private interface Calls {
    void run(Side side, int count) throws Exception;
  }

  /** One client and the node whose status it writes (its own, so the two never conflict). */
  private static final class Side {
    final HttpApiClient api;
    Node written;

    Side(HttpApiClient api, Node written) {
      this.api = api;
      this.written = written;
    }
  }

  /** One round of one workload on one side. */
  private record Round(double callsPerSecond, double callerMicros, double processMicros) {}

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "HTTP clients side by side: own kept connections (A) vs Apache HttpClient 5 classic, pooled (B)");
    try (var cluster = LocalServer.start(dir.resolve("clients"));
        var kept = BenchClients.kept(cluster.uri(), cluster.token());
        var pooled = BenchClients.pooled(cluster.uri(), cluster.token())) {
      for (int i = 0; i < NODES; i++) {
        kept.create(new Node(ObjectMeta.named("n-" + i), NodeSpec.EMPTY, NodeStatus.EMPTY));
      }
      var a =
          new Side(
              kept,
              kept.create(
                  new Node(ObjectMeta.named("status-a"), NodeSpec.EMPTY, NodeStatus.EMPTY)));
      var b =
          new Side(
              pooled,
              kept.create(
                  new Node(ObjectMeta.named("status-b"), NodeSpec.EMPTY, NodeStatus.EMPTY)));
      var workloads =
          List.of(
              new Workload("GET one node", 1_000, HttpClientBench::gets),
              new Workload("LIST " + NODES + " nodes", 150, HttpClientBench::lists),
              new Workload("PUT a node's status", 200, HttpClientBench::statusWrites),
              new Workload(
                  "GET one node, " + CALLERS + " callers on one client",
                  2_000,
                  HttpClientBench::sharedGets));
      report.text("  " + warmUp(workloads, a, b));
      report.text(
          String.format(
              Locale.ROOT,
              "  %-40s %9s %9s %6s  %18s %18s",
              "median of " + ROUNDS + " rounds",
              "A calls/s",
              "B calls/s",
              "B/A",
              "caller µs/call A B",
              "process µs/call A B"));
      for (var w : workloads) {
        var as = new Round[ROUNDS];
        var bs = new Round[ROUNDS];
        var ratios = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
          if (r % 2 == 0) {
            as[r] = round(w, a);
            bs[r] = round(w, b);
          } else {
            bs[r] = round(w, b);
            as[r] = round(w, a);
          }
          ratios[r] = bs[r].callsPerSecond() / as[r].callsPerSecond();
        }
        boolean shared = w.name().contains("callers");
        report.text(
            String.format(
                Locale.ROOT,
                "  %-40s %9.0f %9.0f %6.2f  %8s %9s %8.1f %9.1f   (B/A per round %.2f-%.2f)",
                w.name(),
                median(as, Round::callsPerSecond),
                median(bs, Round::callsPerSecond),
                median(ratios),
                shared ? "-" : String.format(Locale.ROOT, "%.1f", median(as, Round::callerMicros)),
                shared ? "-" : String.format(Locale.ROOT, "%.1f", median(bs, Round::callerMicros)),
                median(as, Round::processMicros),
                median(bs, Round::processMicros),
                Arrays.stream(ratios).min().orElse(0),
                Arrays.stream(ratios).max().orElse(0)));
      }
      firstCalls(cluster.uri(), dir.resolve("clients").resolve("admin.token"), report);
    }
  }

  /**
   * A command's start: {@link FirstCall} in a fresh JVM with the CLI's flags (but no ahead-of-time
   * cache), through each client in turn, the order swapped every round.
   */
  private static void firstCalls(java.net.URI server, Path tokenFile, Report report)
      throws Exception {
    var names = List.of("kept", "apache");
    var wall = new double[2][FIRST_CALLS];
    var cpu = new double[2][FIRST_CALLS];
    for (int r = -1; r < FIRST_CALLS; r++) { // round -1 warms the page cache, uncounted
      for (int k = 0; k < 2; k++) {
        int side = r % 2 == 0 ? k : 1 - k;
        long cpuBefore = CpuTime.childrenNanos();
        var watch = Stopwatch.start();
        var process =
            new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-XX:-UsePerfData",
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp",
                    System.getProperty("java.class.path"),
                    FirstCall.class.getName(),
                    names.get(side),
                    server.toString(),
                    tokenFile.toString())
                .redirectErrorStream(true)
                .start();
        var output = new String(process.getInputStream().readAllBytes());
        if (process.waitFor() != 0) {
          throw new IllegalStateException(
              "the first call through " + names.get(side) + " failed:\n" + output);
        }
        if (r >= 0) {
          wall[side][r] = watch.seconds() * 1e3;
          cpu[side][r] = (CpuTime.childrenNanos() - cpuBefore) / 1e6;
        }
      }
    }
    var ratios = new double[FIRST_CALLS];
    for (int r = 0; r < FIRST_CALLS; r++) {
      ratios[r] = cpu[1][r] / cpu[0][r];
    }
    report.text(
        String.format(
            Locale.ROOT,
            "  %-40s A %.0f ms wall, %.0f ms CPU; B %.0f ms wall, %.0f ms CPU; B/A CPU %.2f "
                + "(medians of %d, no AOT cache)",
            "one table GET from a fresh JVM",
            median(wall[0]),
            median(cpu[0]),
            median(wall[1]),
            median(cpu[1]),
            median(ratios),
            FIRST_CALLS));
  }

  /**
   * Rounds of every workload on both sides until the JIT's share of one is at most a tenth; says
   * how far it went.
   */
  private static String warmUp(List<Workload> workloads, Side a, Side b) throws Exception {
    int rounds = 0;
    CpuTime.Jit jit;
    do {
      long cpuBefore = CpuTime.nanos();
      long jitBefore = CpuTime.jitMillis();
      for (var w : workloads) {
        w.calls().run(a, w.count());
        w.calls().run(b, w.count());
      }
      rounds++;
      jit = CpuTime.jitSince(jitBefore, cpuBefore);
    } while (jit.share() > WARM_UP_SETTLED_JIT && rounds < WARM_UP_MOST);
    return String.format(
        Locale.ROOT,
        "warmed up after %d rounds of every workload on both (the JIT's share of the last: %.0f %%)",
        rounds,
        100 * jit.share());
  }

  private static Round round(Workload w, Side side) throws Exception {
    var threads = ManagementFactory.getThreadMXBean();
    long caller = threads.getCurrentThreadCpuTime();
    long process = CpuTime.nanos();
    var watch = Stopwatch.start();
    w.calls().run(side, w.count());
    double seconds = watch.seconds();
    return new Round(
        w.count() / seconds,
        (threads.getCurrentThreadCpuTime() - caller) / 1e3 / w.count(),
        (CpuTime.nanos() - process) / 1e3 / w.count());
  }

  private static void gets(Side side, int count) {
    for (int i = 0; i < count; i++) {
      side.api.get(Kinds.NODE, "n-" + (i % NODES)).orElseThrow();
    }
  }

  private static void lists(Side side, int count) {
    for (int i = 0; i < count; i++) {
      side.api.list(Kinds.NODE);
    }
  }

  private static void statusWrites(Side side, int count) {
    for (int i = 0; i < count; i++) {
      var status = side.written.status();
      side.written =
          side.api.updateStatus(
              side.written.withStatus(
                  new NodeStatus(
                      status.conditions(),
                      Optional.empty(),
                      "boot-" + i,
                      status.agentVersion(),
                      status.computeDomains(),
                      status.plugins(),
                      status.domainDaemons())));
    }
  }

  private static void sharedGets(Side side, int count) throws Exception {
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<?>>();
      for (int c = 0; c < CALLERS; c++) {
        futures.add(
            pool.submit(
                () -> {
                  gets(side, count / CALLERS);
                  return null;
                }));
      }
      for (var f : futures) {
        f.get();
      }
    }
  }

  private static double median(Round[] rounds, java.util.function.ToDoubleFunction<Round> value) {
    return median(Arrays.stream(rounds).mapToDouble(value).toArray());
  }

  private static double median(double[] values) {
    var sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
