package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiListerWatcher;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.informer.Informer;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 43: a watch the server cuts (its client fell past the byte bound) ends with a 410 line; our
 * informer answers it as it answers a compacted history, by listing again, and goes on from the new
 * list's revision with nothing lost.
 */
@Timeout(120)
class CutInformerTest {
  @TempDir Path dataDir;

  @Test
  void anInformerWhoseWatchIsCutListsAgainAndConverges() throws Exception {
    var api = new InMemoryApiClient();
    // One event of ~4.5 KB is past the bound by itself: the cut does not depend on timing.
    var settings =
        new WatchSettings(Duration.ofMillis(500), Duration.ZERO, 100_000)
            .withMaxQueueBytes(2 << 10);
    try (var t = TestServer.start(api, dataDir, c -> c.withWatch(settings))) {
      var informer =
          Informer.builder(
                  new SystemEnv(),
                  new ApiListerWatcher<>(t.client, Kinds.NODE),
                  (Node n) -> n.metadata().name(),
                  (Node n) -> n.metadata().revision())
              .build();
      BlockingQueue<String> seen = new LinkedBlockingQueue<>();
      informer.addHandler(EventHandler.onAnyChange(n -> seen.add(n.metadata().name())));
      informer.start();
      try {
        api.create(Samples.node("small-0"));
        awaitSeen(seen, "small-0");

        api.create(Samples.node("big", labels(60)));
        api.create(Samples.node("small-1"));
        awaitSeen(seen, "big");
        awaitSeen(seen, "small-1");
        api.create(Samples.node("small-2")); // the watch started after the re-list goes on
        awaitSeen(seen, "small-2");

        assertThat(informer.cache().keys())
            .containsExactlyInAnyOrder("small-0", "big", "small-1", "small-2");
        var metrics = t.send(HttpRequest.newBuilder(t.uri("/metrics")).build()).body();
        assertThat(metrics).containsPattern("qm_watches_closed_total\\{reason=\"too_slow\"} [1-9]");
      } finally {
        informer.stop();
      }
    }
  }

  private static void awaitSeen(BlockingQueue<String> seen, String name)
      throws InterruptedException {
    for (String next; (next = seen.poll(60, TimeUnit.SECONDS)) != null; ) {
      if (next.equals(name)) {
        return;
      }
    }
    throw new AssertionError("the informer never saw " + name);
  }

  private static Map<String, String> labels(int count) {
    var labels = new HashMap<String, String>();
    for (int i = 0; i < count; i++) {
      labels.put("bulk-" + i, "v".repeat(60));
    }
    return labels;
  }
}
