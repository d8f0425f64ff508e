package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchEvent.Type;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Watch streaming: order, selectors, compaction before and after the stream starts, keep-alives,
 * shutdown.
 */
@Timeout(60)
@SuppressWarnings("try") // the watch handles are closed by try-with-resources on purpose
class WatchTest {
  @TempDir Path dataDir;

  @Test
  void streamsEventsInOrder() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var before = t.client.create(Samples.node("early"));
      var handler = new RecordingHandler<Node>();
      try (var watch = t.client.watch(Kinds.NODE, before.metadata().revision(), handler)) {
        var a = t.client.create(Samples.node("a"));
        t.client.create(Samples.node("b"));
        t.client.update(a.withMetadata(a.metadata().withLabels(Map.of("zone", "z1"))));
        t.client.delete(Kinds.NODE, "b");

        var events =
            java.util.List.of(
                handler.nextEvent(), handler.nextEvent(), handler.nextEvent(), handler.nextEvent());
        assertThat(events)
            .extracting(e -> e.type() + " " + e.object().metadata().name())
            .containsExactly("ADDED a", "ADDED b", "MODIFIED a", "DELETED b");
        assertThat(events).extracting(e -> e.revision()).isSorted().doesNotHaveDuplicates();
        assertThat(events.get(2).object().metadata().labels()).containsEntry("zone", "z1");
      }
    }
  }

  @Test
  void replaysHistoryAfterTheRequestedRevision() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      t.client.create(Samples.node("a"));
      var handler = new RecordingHandler<Node>();
      try (var watch = t.client.watch(Kinds.NODE, 0, handler)) {
        assertThat(handler.nextEvent().object().metadata().name()).isEqualTo("a");
      }
    }
  }

  @Test
  void selectorTurnsLeavingObjectsIntoDeletes() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var handler = new RecordingHandler<Node>();
      try (var watch = t.client.watch(Kinds.NODE, 0, LabelSelector.parse("gpu=h100"), handler)) {
        var a = t.client.create(Samples.node("a", Map.of("gpu", "h100")));
        t.client.create(Samples.node("other", Map.of("gpu", "a100")));
        var moved = t.client.update(a.withMetadata(a.metadata().withLabels(Map.of("gpu", "a100"))));
        t.client.update(moved.withMetadata(moved.metadata().withLabels(Map.of("gpu", "h100"))));

        assertThat(java.util.List.of(handler.nextEvent(), handler.nextEvent(), handler.nextEvent()))
            .extracting(e -> e.type() + " " + e.object().metadata().name())
            .containsExactly("ADDED a", "DELETED a", "ADDED a");
      }
    }
  }

  @Test
  void compactedRevisionIs410AndTheClientHearsGone() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      for (var name : java.util.List.of("a", "b", "c")) {
        t.client.create(Samples.node(name));
      }
      api.compact(2);

      var raw = t.send("GET", "/api/v1/nodes?watch=true&revision=1", "");
      assertThat(raw.statusCode()).isEqualTo(410);
      assertThat(raw.headers().firstValue(HttpWire.COMPACTED_REVISION_HEADER)).contains("2");
      assertThat(TestServer.error(raw).reason()).isEqualTo(Reason.Gone);

      var handler = new RecordingHandler<Node>();
      t.client.watch(Kinds.NODE, 1, handler).close();
      assertThat(handler.next()).isEqualTo(new RecordingHandler.Gone(2));

      var fine = new RecordingHandler<Node>();
      try (var watch = t.client.watch(Kinds.NODE, 2, fine)) {
        assertThat(fine.nextEvent().object().metadata().name()).isEqualTo("c");
      }
    }
  }

  @Test
  void goneAfterStreamingStartedIsAnErrorLineAndTheClientHearsGone() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var handler = new RecordingHandler<Node>();
      try (var watch = t.client.watch(Kinds.NODE, 0, handler)) {
        t.client.create(Samples.node("a"));
        assertThat(handler.nextEvent().type()).isEqualTo(Type.ADDED);
        api.compact(1);
        api.goneAll();
        assertThat(handler.next()).isEqualTo(new RecordingHandler.Gone(1));
      }
    }
  }

  @Test
  void idleStreamGetsBookmarkLines() throws IOException, InterruptedException {
    var api = new InMemoryApiClient();
    var quick = new WatchSettings(Duration.ofMillis(20), Duration.ZERO, 100);
    try (var t = TestServer.start(api, dataDir, c -> c.withWatch(quick))) {
      t.client.create(Samples.node("a"));
      var response =
          t.raw.send(
              t.request("/api/v1/nodes?watch=true&revision=0").build(),
              BodyHandlers.ofInputStream());
      assertThat(response.statusCode()).isEqualTo(200);
      try (var lines = lines(response.body())) {
        var first = TestServer.json(lines.readLine());
        assertThat(first.get("type").asText()).isIn("ADDED", "BOOKMARK");
        String line;
        do {
          line = lines.readLine();
        } while (line != null && !line.contains("BOOKMARK"));
        assertThat(line).isNotNull();
        assertThat(TestServer.json(line).get("revision").asLong()).isEqualTo(1);
      }
    }
  }

  @Test
  void stoppingTheServerEndsWatches() throws IOException {
    var api = new InMemoryApiClient();
    var t = TestServer.start(api, dataDir);
    var handler = new RecordingHandler<Node>();
    try (var watch = t.client.watch(Kinds.NODE, 0, handler)) {
      t.client.create(Samples.node("a"));
      assertThat(handler.nextEvent().type()).isEqualTo(Type.ADDED);
      t.server.close();
      assertThat(handler.next())
          .isInstanceOfSatisfying(
              RecordingHandler.Closed.class, c -> assertThat(c.reason()).contains("shutting down"));
    } finally {
      t.close();
    }
  }

  @Test
  void clientGoingAwayEndsTheServerSideWatch() throws IOException, InterruptedException {
    var api = new InMemoryApiClient();
    var quick = new WatchSettings(Duration.ofMillis(20), Duration.ZERO, 100);
    try (var t = TestServer.start(api, dataDir, c -> c.withWatch(quick))) {
      var watch = t.client.watch(Kinds.NODE, 0, new RecordingHandler<Node>());
      assertThat(api.awaitOpenWatches(1)).isTrue();
      watch.close();
      // The server notices at its next keep-alive write and closes the store watch.
      assertThat(api.awaitOpenWatches(0)).isTrue();
      var metrics = t.send(java.net.http.HttpRequest.newBuilder(t.uri("/metrics")).build());
      assertThat(metrics.body()).containsPattern("qm_watches_active 0(\\.0)?\\n");
    }
  }

  @Test
  void slowClientIsCutOffInsteadOfBufferingWithoutBound() throws IOException {
    var api = new InMemoryApiClient();
    try (var t =
        TestServer.start(
            api,
            dataDir,
            c -> c.withWatch(new WatchSettings(Duration.ofSeconds(10), Duration.ZERO, 2)))) {
      for (var name : java.util.List.of("a", "b", "c", "d")) {
        t.client.create(Samples.node(name));
      }
      // The history replay alone overflows a queue of 2 before the stream starts.
      var response = t.send("GET", "/api/v1/nodes?watch=true&revision=0", "");
      assertThat(response.statusCode()).isEqualTo(410);
      assertThat(TestServer.error(response).message()).contains("watch cut").contains("list again");
    }
  }

  @Test
  void theHttpClientHearsATooSlowEndAsGoneWhichInformersAndGetWatchAnswerByListingAgain()
      throws IOException {
    var api = new InMemoryApiClient();
    try (var t =
        TestServer.start(
            api,
            dataDir,
            c -> c.withWatch(new WatchSettings(Duration.ofSeconds(10), Duration.ZERO, 2)))) {
      for (var name : java.util.List.of("a", "b", "c", "d")) {
        t.client.create(Samples.node(name));
      }
      var handler = new RecordingHandler<Node>();
      try (var watch = t.client.watch(Kinds.NODE, 0, handler)) {
        // onGone is what ListWatch (qm get -w) and the informer's ApiListerWatcher turn into a
        // re-list.
        assertThat(handler.next()).isInstanceOf(RecordingHandler.Gone.class);
      }
    }
  }

  private static BufferedReader lines(InputStream in) {
    return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
  }
}
