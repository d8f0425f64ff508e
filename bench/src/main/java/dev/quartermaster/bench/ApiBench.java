package dev.quartermaster.bench;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.concurrent.Executors;

/** Creates per second through the whole stack: HTTP client, server, registry, SQLite. */
final class ApiBench implements Bench.Benchmark {

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("API over HTTP (create Node objects)");
    for (int clients : new int[] {1, 32}) {
      try (var cluster = LocalServer.start(dir.resolve("api-" + clients))) {
        int total = clients == 1 ? 1_000 : 4_000;
        int perClient = total / clients;
        var watch = Stopwatch.start();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
          var futures = new ArrayList<java.util.concurrent.Future<?>>();
          for (int c = 0; c < clients; c++) {
            int client = c;
            futures.add(pool.submit(() -> {
              try (var api = new HttpApiClient(cluster.uri(), cluster.token())) {
                for (int i = 0; i < perClient; i++) {
                  api.create(new Node(ObjectMeta.named("n-" + client + "-" + i), NodeSpec.EMPTY, NodeStatus.EMPTY));
                }
              }
              return null;
            }));
          }
          for (var f : futures) {
            f.get();
          }
        }
        report.figure("API creates/s over HTTP, " + clients + " client" + (clients == 1 ? "" : "s"),
            perClient * clients / watch.seconds(), "creates/s", raw);
      }
    }
  }
}
