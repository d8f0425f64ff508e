package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Clients that connect and stall, or hold many requests: the server stays answerable and sheds them. */
@Timeout(180)
class ConnectionFloodTest {
  /** Within this box's open-file limit with room to spare: each stalled connection costs two descriptors here. */
  private static final int STALLED = 3_000;

  @TempDir Path dataDir;

  @Test
  void healthzAnswersUnderAFloodOfStalledConnectionsAndTheyAreClosedAfterTheRequestTimeout() throws Exception {
    var settings = new ConnectionSettings(Duration.ofSeconds(2), Duration.ofSeconds(2), 10_000, 2_000);
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withConnections(settings))) {
      // The JDK server reads its limits once per JVM: an earlier server in this JVM may have set a longer one.
      long requestTimeoutSeconds = Long.getLong(JdkServerProperties.MAX_REQ_TIME);
      var stalled = new ArrayList<Socket>(STALLED);
      try {
        for (int i = 0; i < STALLED; i++) {
          var socket = new Socket();
          socket.connect(new InetSocketAddress("127.0.0.1", t.server.port()), 5_000);
          socket.getOutputStream().write("GET /api/v1/nod".getBytes(StandardCharsets.US_ASCII)); // and nothing more
          stalled.add(socket);
        }

        long started = System.nanoTime();
        var health = t.raw.send(HttpRequest.newBuilder(t.uri("/healthz")).timeout(Duration.ofSeconds(10)).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
        long tookMicros = (System.nanoTime() - started) / 1_000;
        assertThat(health.statusCode()).isEqualTo(200);
        System.out.printf("healthz under %d stalled connections answered in %d us%n", STALLED, tookMicros);

        // Every stalled connection is closed by the server: a read sees end of stream (or a reset).
        long deadline = System.nanoTime() + Duration.ofSeconds(requestTimeoutSeconds + 60).toNanos();
        for (var socket : stalled) {
          assertThat(closedByServer(socket, deadline)).as("closed by the server before the deadline").isTrue();
        }
      } finally {
        for (var socket : stalled) {
          socket.close();
        }
      }
      assertThat(t.send(HttpRequest.newBuilder(t.uri("/healthz")).build()).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void requestsBeyondThePerAddressCapAre503AndCounted() throws Exception {
    var settings = new ConnectionSettings(Duration.ofSeconds(30), Duration.ofSeconds(30), 10_000, 2);
    // Quick bookmarks, so the server notices closed watches (and frees their slots) soon.
    var quick = new WatchSettings(Duration.ofMillis(100), Duration.ZERO, 100);
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withConnections(settings).withWatch(quick))) {
      var handlers = List.of(new RecordingHandler<Node>(), new RecordingHandler<Node>());
      var watches = new ArrayList<WatchHandle>();
      try {
        for (var handler : handlers) {
          watches.add(t.client.watch(Kinds.NODE, 0, handler));
        }
        // The two watches hold both slots of 127.0.0.1 once their requests reached the handler.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int status;
        do {
          status = t.send(HttpRequest.newBuilder(t.uri("/healthz")).build()).statusCode();
        } while (status == 200 && System.nanoTime() < deadline);
        assertThat(status).isEqualTo(503);
        var refused = t.send(HttpRequest.newBuilder(t.uri("/healthz")).build());
        assertThat(refused.body()).contains("too many requests in flight from 127.0.0.1");
      } finally {
        watches.forEach(WatchHandle::close);
      }
      // Slots are given back when the watches end.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      String metrics;
      do {
        metrics = t.send(HttpRequest.newBuilder(t.uri("/metrics")).build()).body();
      } while (!metrics.startsWith("#") && System.nanoTime() < deadline);
      assertThat(metrics).containsPattern("qm_http_rejected_total\\{reason=\"per_address\"} [1-9]");
    }
  }

  /** Reads until the server closes the socket or {@code deadline} passes. */
  private static boolean closedByServer(Socket socket, long deadline) throws IOException {
    InputStream in = socket.getInputStream();
    while (System.nanoTime() < deadline) {
      socket.setSoTimeout((int) Math.max(1, Math.min(1_000, (deadline - System.nanoTime()) / 1_000_000)));
      try {
        if (in.read() == -1) {
          return true;
        }
        // A byte: the server answered something (e.g. an error) and will close; keep reading.
      } catch (SocketTimeoutException e) {
        // not yet
      } catch (IOException e) {
        return true; // reset by the server
      }
    }
    return false;
  }
}
