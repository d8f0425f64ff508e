package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What RFC 9110/9112 say a server refuses, refused with a JSON error: an HTTP version it does not
 * speak, a single-valued field given twice, and a body the client stopped sending before it was whole.
 */
@Timeout(60)
class RequestHeadTest {
  @TempDir Path dataDir;

  @Test
  void anHttpVersionOtherThanOneDotZeroOrOneDotOneIs505() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      for (var version : new String[] {"HTTP/9.9", "HTTP/2.0", "HTTP/1.2"}) {
        var response = RawHttp.one(t.server.port(), "GET /healthz " + version + "\r\nHost: x\r\n\r\n");
        assertThat(response.status()).as(version).isEqualTo(505);
        assertThat(response.isJson()).isTrue();
        assertThat(response.body()).contains(version + " is not supported");
      }
      assertThat(RawHttp.one(t.server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status()).isEqualTo(200);
      assertThat(RawHttp.one(t.server.port(), "GET /healthz HTTP/1.0\r\n\r\n").status()).isEqualTo(200);
    }
  }

  @Test
  void aSingleValuedFieldGivenTwiceIs400AndAuthenticatesNobody() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var twice = RawHttp.one(t.server.port(), "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
          + t.token + "\r\nAuthorization: Bearer nobody\r\n\r\n");
      assertThat(twice.status()).isEqualTo(400);
      assertThat(twice.isJson()).isTrue();
      assertThat(twice.body()).contains("authorization is given 2 times");
      var hosts = RawHttp.one(t.server.port(), "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
      assertThat(hosts.status()).isEqualTo(400);
      var once = RawHttp.one(t.server.port(), "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
          + t.token + "\r\nConnection: close\r\n\r\n");
      assertThat(once.status()).isEqualTo(200);
    }
  }

  @Test
  void aBodyCutShortByAHalfCloseIsAnswered() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withMaxBodyBytes(1024))) {
      var huge = halfClosed(t.server.port(), "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
          + t.token + "\r\nContent-Length: 99999999999999\r\n\r\n{\"kind\":");
      assertThat(huge.status()).isEqualTo(413);
      assertThat(huge.isJson()).isTrue();
      var shortBody = halfClosed(t.server.port(), "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
          + t.token + "\r\nContent-Length: 10\r\n\r\nabc");
      assertThat(shortBody.status()).isEqualTo(400);
      assertThat(shortBody.body()).contains("ended after 3 bytes of the 10");
    }
  }

  private static RawHttp.Response halfClosed(int port, String request) throws Exception {
    try (var socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      socket.shutdownOutput(); // as nc -N does: the server reads end-of-stream inside the body
      var responses = RawHttp.readAll(socket.getInputStream());
      assertThat(responses).as("an answer before the server closed").isNotEmpty();
      return responses.getFirst();
    }
  }
}
