package dev.quartermaster.bench;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/** How long a change takes to reach each of 1,000 HTTP watchers, from the start of the write. */
final class WatchBench implements Bench.Benchmark {
  private static final int WATCHERS = 1_000;
  private static final int WRITES = 50;

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("watch fan-out over HTTP (" + WATCHERS + " watchers, " + WRITES + " writes)");
    try (var cluster = LocalServer.start(dir.resolve("watch"));
        var writer = new HttpApiClient(cluster.uri(), cluster.token())) {
      var started = new ConcurrentHashMap<String, Long>();
      var latencies = new AtomicLongArray(WATCHERS * WRITES);
      var received = new java.util.concurrent.atomic.AtomicInteger();
      var all = new CountDownLatch(WATCHERS * WRITES);
      var clients = new ArrayList<HttpApiClient>();
      var watches = new ArrayList<WatchHandle>();
      long from = writer.list(Kinds.NODE).revision();
      for (int w = 0; w < WATCHERS; w++) {
        var client = new HttpApiClient(cluster.uri(), cluster.token());
        clients.add(client);
        watches.add(
            client.watch(
                Kinds.NODE,
                from,
                new WatchHandler<>() {
                  @Override
                  public void onEvent(WatchEvent<Node> event) {
                    long now = Stopwatch.nanos();
                    var t0 = started.get(event.object().metadata().name());
                    if (t0 != null) {
                      latencies.set(received.getAndIncrement() % latencies.length(), now - t0);
                    }
                    all.countDown();
                  }

                  @Override
                  public void onGone(long compactedRevision) {}
                }));
      }
      for (int i = 0; i < WRITES; i++) {
        var name = "w-" + i;
        started.put(name, Stopwatch.nanos());
        writer.create(new Node(ObjectMeta.named(name), NodeSpec.EMPTY, NodeStatus.EMPTY));
      }
      var complete = all.await(120, TimeUnit.SECONDS);
      var samples = new long[Math.min(received.get(), latencies.length())];
      for (int i = 0; i < samples.length; i++) {
        samples[i] = latencies.get(i);
      }
      report.line(
          "events delivered",
          received.get() + " of " + WATCHERS * WRITES + (complete ? "" : " (timed out)"));
      if (samples.length > 0) {
        report.latencies("write start → event at watcher, " + WATCHERS + " watchers", samples);
      }
      watches.forEach(WatchHandle::close);
      clients.forEach(HttpApiClient::close);
    }
  }
}
