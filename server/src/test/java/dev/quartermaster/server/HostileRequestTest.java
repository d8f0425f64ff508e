package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests no client library would send, answered by the transport before any handler: each gets a
 * JSON error with a status that says what is wrong, never an HTML page, a Java class name or a
 * reset. The same checks fail against the JDK's own server (kept below as the naive variant).
 */
class HostileRequestTest {
  @TempDir Path dataDir;

  @Test
  void everyMalformedRequestGetsAJsonErrorNamingTheProblem() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      checkAll(t.server.port(), t.token);
      assertThat(
              t.send(java.net.http.HttpRequest.newBuilder(t.uri("/healthz")).build()).statusCode())
          .isEqualTo(200);
      var metrics = t.send(java.net.http.HttpRequest.newBuilder(t.uri("/metrics")).build()).body();
      assertThat(metrics).containsPattern("qm_http_rejected_total\\{reason=\"malformed\"} [1-9]");
    }
  }

  @Test
  void theJdkServerFailsTheSameChecks() throws Exception {
    var naive = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    naive.createContext(
        "/",
        exchange -> {
          var body =
              "{\"code\":404,\"reason\":\"NotFound\",\"message\":\"x\",\"details\":[]}"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(404, body.length);
          try (var out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    naive.start();
    try {
      assertThatThrownBy(() -> checkAll(naive.getAddress().getPort(), "token"))
          .isInstanceOf(AssertionError.class);
    } finally {
      naive.stop(0);
    }
  }

  private static void checkAll(int port, String token) throws IOException {
    IntFunction<String> auth = n -> "Authorization: Bearer " + token + "\r\n";
    expect(
        RawHttp.one(port, "GET /api/v1/nodes/%zz HTTP/1.1\r\nHost: x\r\n" + auth.apply(0) + "\r\n"),
        400,
        "not a valid URI",
        "Malformed escape pair");
    expect(
        RawHttp.one(
            port,
            "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n"
                + auth.apply(0)
                + "\r\n"),
        400,
        "malformed HTTP request");
    expect(RawHttp.one(port, "GARBAGE\r\n\r\n"), 400, "malformed HTTP request");
    expect(
        RawHttp.one(port, "GET mailto:x HTTP/1.1\r\nHost: x\r\n\r\n"),
        400,
        "must be a path starting with '/'");
    expect(
        RawHttp.one(
            port, "GET /api/v1/nodes?" + "a".repeat(1 << 20) + " HTTP/1.1\r\nHost: x\r\n\r\n"),
        414,
        "request line is longer than");
    expect(
        RawHttp.one(
            port,
            "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                + ("X-Padding: " + "p".repeat(100) + "\r\n").repeat(400)
                + "\r\n"),
        431,
        "headers are larger than");
    expect(
        RawHttp.one(
            port,
            "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 99999999999\r\n"
                + auth.apply(0)
                + "\r\n"),
        413,
        "the limit is");
    expect(
        RawHttp.one(
            port,
            "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                + auth.apply(0)
                + "\r\nzz\r\n"),
        400,
        "malformed HTTP request");
  }

  private static void expect(RawHttp.Response response, int status, String... phrases) {
    assertThat(response.status()).as("status of %s", response).isEqualTo(status);
    assertThat(response.isJson()).as("a JSON body: %s", response).isTrue();
    assertThat(response.body()).contains(phrases).doesNotContain("Exception", "<h1>");
  }
}
