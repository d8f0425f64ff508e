package dev.quartermaster.api.client.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A watch stream that says nothing, not even the server's bookmarks, is a lost connection: the
 * handler hears it closed, so an informer lists again. The partitions harness found the naive
 * reader: an agent cut off past the server's patience read its half-open watch connections for
 * ever, its informers silent, while its heartbeats (new requests) worked.
 */
class WatchSilenceTest {
  private static final URI URI_ = URI.create("http://127.0.0.1:1/api/v1/nodes?watch=true");

  @Test
  void aSilentStreamIsClosedAndTheHandlerToldWhy() throws Exception {
    var closed = new CompletableFuture<String>();
    try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
      var silent = body(new PipedOutputStream());
      var watch =
          new HttpWatch<>(
              Kinds.NODE, silent, handler(closed), URI_, w -> {}, Duration.ofMillis(300));
      watch.start(executor);
      assertThat(closed.get(30, TimeUnit.SECONDS))
          .contains("no word from " + URI_)
          .contains("presumed lost");
    }
  }

  @Test
  void bookmarksKeepAStreamOpen() throws Exception {
    var closed = new CompletableFuture<String>();
    try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
      var server = new PipedOutputStream();
      var body = body(server);
      var watch =
          new HttpWatch<>(Kinds.NODE, body, handler(closed), URI_, w -> {}, Duration.ofMillis(600));
      watch.start(executor);
      // Bookmarks for three times the silence bound, as the server writes them on an idle stream.
      for (int i = 0; i < 18; i++) {
        server.write("{\"type\":\"BOOKMARK\",\"revision\":12}\n".getBytes(StandardCharsets.UTF_8));
        server.flush();
        java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      }
      assertThat(closed).isNotDone();
      watch.close();
    }
  }

  /**
   * A response body whose close wakes its reader, as the HTTP client's does (a pipe closed by its
   * reader leaves a blocked read waiting): it closes the writing end too.
   */
  private static java.io.InputStream body(PipedOutputStream server) throws java.io.IOException {
    return new PipedInputStream(server) {
      @Override
      public void close() throws java.io.IOException {
        server.close();
      }
    };
  }

  private static WatchHandler<Node> handler(CompletableFuture<String> closed) {
    return new WatchHandler<>() {
      @Override
      public void onEvent(WatchEvent<Node> event) {}

      @Override
      public void onGone(long compactedRevision) {
        closed.complete("gone");
      }

      @Override
      public void onClosed(String reason) {
        closed.complete(reason);
      }
    };
  }
}
