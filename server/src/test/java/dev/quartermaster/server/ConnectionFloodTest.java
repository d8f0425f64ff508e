package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.server.http.ConnectionSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that connect and stall, or hold many connections: the server stays answerable and sheds
 * them.
 */
@Timeout(180)
class ConnectionFloodTest {
  /**
   * Within this box's open-file limit with room to spare: each stalled connection costs two
   * descriptors here.
   */
  private static final int STALLED = 3_000;

  @TempDir Path dataDir;

  @Test
  void healthzAnswersUnderAFloodOfStalledConnectionsAndEachIsAnswered408AfterTheRequestTimeout()
      throws Exception {
    var settings =
        new ConnectionSettings(Duration.ofSeconds(2), Duration.ofSeconds(2), 10_000, 10_000);
    try (var t =
        TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withConnections(settings))) {
      var stalled = new ArrayList<Socket>(STALLED);
      try {
        for (int i = 0; i < STALLED; i++) {
          stalled.add(connect(t, "GET /api/v1/nod")); // and nothing more
        }
        long started = System.nanoTime();
        var health =
            t.raw.send(
                HttpRequest.newBuilder(t.uri("/healthz")).timeout(Duration.ofSeconds(10)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        System.out.printf(
            "healthz under %d stalled connections answered in %d us%n",
            STALLED, (System.nanoTime() - started) / 1_000);

        // Every stalled connection is told why and closed by the server.
        for (var socket : stalled) {
          var answers = RawHttp.readAll(withTimeout(socket, 30_000).getInputStream());
          assertThat(answers).hasSize(1);
          assertThat(answers.getFirst().status()).isEqualTo(408);
          assertThat(answers.getFirst().body()).contains("did not arrive whole within 2s");
        }
      } finally {
        closeAll(stalled);
      }
      assertThat(t.send(HttpRequest.newBuilder(t.uri("/healthz")).build()).statusCode())
          .isEqualTo(200);
      assertThat(metrics(t))
          .contains("qm_http_rejected_total{reason=\"request_timeout\"} " + STALLED + ".0");
    }
  }

  @Test
  void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeout() throws Exception {
    var settings =
        new ConnectionSettings(Duration.ofSeconds(30), Duration.ofSeconds(1), 10_000, 10_000);
    try (var t =
            TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withConnections(settings));
        var silent = connect(t, "")) {
      assertThat(withTimeout(silent, 30_000).getInputStream().read())
          .as("closed without a word")
          .isEqualTo(-1);
    }
  }

  @Test
  void connectionsPastThePerAddressCapAre503AtAcceptAndCounted() throws Exception {
    var settings =
        new ConnectionSettings(Duration.ofSeconds(30), Duration.ofSeconds(30), 10_000, 3);
    try (var t =
        TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withConnections(settings))) {
      var held = new ArrayList<Socket>();
      try {
        for (int i = 0; i < 3; i++) {
          held.add(connect(t, ""));
        }
        awaitOpenConnections(t, 3);
        var refused = RawHttp.one(t.server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.body()).contains("too many connections from 127.0.0.1 (limit 3)");
      } finally {
        closeAll(held);
      }
      awaitOpenConnections(t, 0);
      assertThat(t.send(HttpRequest.newBuilder(t.uri("/healthz")).build()).statusCode())
          .isEqualTo(200);
      assertThat(metrics(t))
          .contains("qm_http_rejected_total{reason=\"connections_per_address\"} 1.0");
    }
  }

  @Test
  void connectionsPastTheServerCapAre503AtAccept() throws Exception {
    var settings = new ConnectionSettings(Duration.ofSeconds(30), Duration.ofSeconds(30), 4, 100);
    try (var t =
        TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withConnections(settings))) {
      var held = new ArrayList<Socket>();
      try {
        for (int i = 0; i < 4; i++) {
          held.add(connect(t, ""));
        }
        awaitOpenConnections(t, 4);
        var refused = RawHttp.one(t.server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.body()).contains("limit of 4 connections");
      } finally {
        closeAll(held);
      }
      awaitOpenConnections(t, 0);
      assertThat(metrics(t)).contains("qm_http_rejected_total{reason=\"connections\"} 1.0");
    }
  }

  private static Socket connect(TestServer t, String firstBytes) throws IOException {
    var socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", t.server.port()), 5_000);
    socket.getOutputStream().write(firstBytes.getBytes(StandardCharsets.US_ASCII));
    return socket;
  }

  private static Socket withTimeout(Socket socket, int millis) throws IOException {
    socket.setSoTimeout(millis);
    return socket;
  }

  private static void closeAll(List<Socket> sockets) throws IOException {
    for (var socket : sockets) {
      socket.close();
    }
  }

  /**
   * Waits (bounded) until the server counts {@code n} connections; /metrics itself is one more
   * while it runs.
   */
  private static void awaitOpenConnections(TestServer t, int n) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (t.server.openConnections() != n) {
      assertThat(System.nanoTime())
          .as("%d connections open before the deadline", n)
          .isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private static String metrics(TestServer t) {
    return t.send(HttpRequest.newBuilder(t.uri("/metrics")).build()).body();
  }
}
