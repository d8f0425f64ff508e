package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What well-behaved clients rely on from the transport: keep-alive, pipelining, HEAD, chunked
 * bodies, HTTP/1.0.
 */
class TransportTest {
  @TempDir Path dataDir;

  @Test
  void pipelinedRequestsAreAnsweredInOrderOnOneConnection() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var one = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
      var missing =
          "GET /api/v1/nodes/nope HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
              + t.token
              + "\r\n\r\n";
      var last = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      var responses =
          RawHttp.exchange(
              t.server.port(), (one + missing + one + last).getBytes(StandardCharsets.US_ASCII));
      assertThat(responses)
          .extracting(RawHttp.Response::status)
          .containsExactly(200, 404, 200, 200);
      assertThat(responses.get(1).body()).contains("nope");
    }
  }

  @Test
  void headIsAnsweredWithHeadersOnly() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var responses =
          RawHttp.exchange(
              t.server.port(),
              "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      assertThat(responses).extracting(RawHttp.Response::status).containsExactly(200, 200);
      assertThat(responses.get(0).body()).isEmpty();
      assertThat(responses.get(1).body()).isEqualTo("ok\n");
    }
  }

  @Test
  void aChunkedRequestBodyIsReadWhole() throws Exception {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var json = "{\"kind\":\"Node\",\"metadata\":{\"name\":\"chunky\"},\"spec\":{}}";
      var body =
          Integer.toHexString(10)
              + "\r\n"
              + json.substring(0, 10)
              + "\r\n"
              + Integer.toHexString(json.length() - 10)
              + "\r\n"
              + json.substring(10)
              + "\r\n0\r\n\r\n";
      var response =
          RawHttp.one(
              t.server.port(),
              "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                  + "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\nAuthorization: Bearer "
                  + t.token
                  + "\r\n\r\n"
                  + body);
      assertThat(response.status()).as(response.body()).isEqualTo(201);
      assertThat(api.get(Kinds.NODE, "chunky")).isPresent();
    }
  }

  @Test
  void aClientThatShutsDownItsSendingSideStillGetsItsAnswers() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir);
        var socket = new java.net.Socket("127.0.0.1", t.server.port())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write(
              ("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      socket.shutdownOutput(); // as nc -N does
      assertThat(RawHttp.readAll(socket.getInputStream()))
          .extracting(RawHttp.Response::status)
          .containsExactly(200, 200);
    }
  }

  @Test
  void http10WithoutKeepAliveIsAnsweredAndClosed() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var response = RawHttp.one(t.server.port(), "GET /healthz HTTP/1.0\r\n\r\n");
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.header("connection")).isEqualToIgnoringCase("close");
    }
  }

  @Test
  void anOversizedBodyGets413WhileTheClientIsStillSending() throws Exception {
    try (var t =
        TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withMaxBodyBytes(1024))) {
      var body = "x".repeat(200_000);
      var response =
          RawHttp.one(
              t.server.port(),
              "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Length: "
                  + body.length()
                  + "\r\nAuthorization: Bearer "
                  + t.token
                  + "\r\n\r\n"
                  + body);
      assertThat(response.status()).isEqualTo(413);
      assertThat(response.isJson()).isTrue();
    }
  }
}
