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
 * Creates per second through the whole stack: HTTP client, server, registry, SQLite; and, beside the
 * single client, the same creates on the registry in-process, so the HTTP share is visible. Each
 * figure follows uncounted warm-up creates on the same server, in rounds until the rate stops rising
 * ({@link #warmUp}): on 2 cores the JIT compiles the path for seconds, and a single client's rate
 * was still rising by a third after 1,000 creates, by a tenth after 6,000.
 */
final class ApiBench implements Bench.Benchmark {
  private static final int WARM_UP_ROUND = 1_000;
  private static final int WARM_UP_MOST = 20_000;

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("API over HTTP (create Node objects)");
    try (var cluster = LocalServer.start(dir.resolve("registry-1"))) {
      warmUp(cluster.registry());
      var watch = Stopwatch.start();
      creates(cluster.registry(), "m", 2_000);
      report.figure("registry creates/s in-process, 1 caller (no HTTP)", 2_000 / watch.seconds(), "creates/s", raw);
    }
    try (var cluster = LocalServer.start(dir.resolve("api-1"));
        var api = new HttpApiClient(cluster.uri(), cluster.token())) {
      // One client as a script or the CLI is one: sequential calls from a plain thread, on one kept connection.
      warmUp(api);
      var watch = Stopwatch.start();
      creates(api, "m", 2_000);
      double rate = 2_000 / watch.seconds();
      report.figure("API creates/s over HTTP, 1 client", rate, "creates/s", raw);
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
          futures.add(pool.submit(() -> {
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
      report.figure("API creates/s over HTTP, " + clients + " clients (virtual threads)",
          perClient * clients / watch.seconds(), "creates/s", raw);
    }
  }

  /**
   * Creates in rounds of {@value #WARM_UP_ROUND} until two rounds in a row are not 3 % faster than
   * the best before them (the JIT is done with the path), at most {@value #WARM_UP_MOST}.
   */
  private static void warmUp(ApiClient api) {
    double best = 0;
    int flat = 0;
    for (int done = 0; done < WARM_UP_MOST && flat < 2; done += WARM_UP_ROUND) {
      var watch = Stopwatch.start();
      creates(api, "w" + done, WARM_UP_ROUND);
      double rate = WARM_UP_ROUND / watch.seconds();
      flat = rate < best * 1.03 ? flat + 1 : 0;
      best = Math.max(best, rate);
    }
  }

  private static void creates(ApiClient api, String prefix, int count) {
    for (int i = 0; i < count; i++) {
      api.create(new Node(ObjectMeta.named(prefix + "-" + i), NodeSpec.EMPTY, NodeStatus.EMPTY));
    }
  }
}
