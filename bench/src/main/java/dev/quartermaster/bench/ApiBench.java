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
 * figure follows uncounted warm-up creates (the JIT compiles the path on 2 cores for seconds).
 */
final class ApiBench implements Bench.Benchmark {
  private static final int WARM_UP = 1_000;

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("API over HTTP (create Node objects)");
    try (var cluster = LocalServer.start(dir.resolve("registry-1"))) {
      creates(cluster.registry(), "w", WARM_UP);
      var watch = Stopwatch.start();
      creates(cluster.registry(), "m", 2_000);
      report.figure("registry creates/s in-process, 1 caller (no HTTP)", 2_000 / watch.seconds(), "creates/s", raw);
    }
    for (int clients : new int[] {1, 32}) {
      try (var cluster = LocalServer.start(dir.resolve("api-" + clients))) {
        int total = clients == 1 ? 2_000 : 4_000;
        int perClient = total / clients;
        try (var api = new HttpApiClient(cluster.uri(), cluster.token())) {
          creates(api, "w", WARM_UP);
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
        double rate = perClient * clients / watch.seconds();
        report.figure("API creates/s over HTTP, " + clients + " client" + (clients == 1 ? "" : "s"), rate, "creates/s", raw);
        if (clients == 1) {
          // Issue 13: one client's creates within 2x of the raw commit rate.
          report.target("1 client's creates/s (half the raw commit rate)", rate, raw / 2);
        }
      }
    }
  }

  private static void creates(ApiClient api, String prefix, int count) {
    for (int i = 0; i < count; i++) {
      api.create(new Node(ObjectMeta.named(prefix + "-" + i), NodeSpec.EMPTY, NodeStatus.EMPTY));
    }
  }
}
