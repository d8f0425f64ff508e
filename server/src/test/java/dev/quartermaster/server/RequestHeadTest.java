package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What RFC 9110/9112 say a server refuses, refused with a JSON error: an HTTP version it does not
 * speak, a single-valued field given twice, a header line folded onto the one above, and a body the
 * client stopped sending before it was whole.
 */
@Timeout(60)
class RequestHeadTest {
  @TempDir Path dataDir;

  @Test
  void anHttpVersionOtherThanOneDotZeroOrOneDotOneIs505() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      for (var version : new String[] {"HTTP/9.9", "HTTP/2.0", "HTTP/1.2"}) {
        var response =
            RawHttp.one(t.server.port(), "GET /healthz " + version + "\r\nHost: x\r\n\r\n");
        assertThat(response.status()).as(version).isEqualTo(505);
        assertThat(response.isJson()).isTrue();
        assertThat(response.body()).contains(version + " is not supported");
      }
      assertThat(
              RawHttp.one(
                      t.server.port(),
                      "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                  .status())
          .isEqualTo(200);
      assertThat(RawHttp.one(t.server.port(), "GET /healthz HTTP/1.0\r\n\r\n").status())
          .isEqualTo(200);
    }
  }

  @Test
  void aSingleValuedFieldGivenTwiceIs400AndAuthenticatesNobody() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var twice =
          RawHttp.one(
              t.server.port(),
              "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + t.token
                  + "\r\nAuthorization: Bearer nobody\r\n\r\n");
      assertThat(twice.status()).isEqualTo(400);
      assertThat(twice.isJson()).isTrue();
      assertThat(twice.body()).contains("authorization is given 2 times");
      var hosts =
          RawHttp.one(t.server.port(), "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
      assertThat(hosts.status()).isEqualTo(400);
      var once =
          RawHttp.one(
              t.server.port(),
              "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + t.token
                  + "\r\nConnection: close\r\n\r\n");
      assertThat(once.status()).isEqualTo(200);
    }
  }

  @Test
  void aFoldedAuthorizationIs400ClosesTheConnectionAndAuthenticatesNobody() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      // Netty would join the lines into "Bearer <token>": a valid credential, had the fold passed.
      var folded =
          exchangeUntilClosed(
              t.server.port(),
              "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n "
                  + t.token
                  + "\r\n\r\n");
      assertThat(folded)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.status()).isEqualTo(400);
                assertThat(r.isJson()).isTrue();
                assertThat(r.header("connection")).isEqualToIgnoringCase("close");
                assertThat(r.body())
                    .contains(
                        "\"reason\":\"BadRequest\"",
                        "header line 3 of the request is an obsolete line"
                            + " folding (starts with a space or tab): RFC 9112 5.2; send each field on one line");
              });
      var metrics = t.send(java.net.http.HttpRequest.newBuilder(t.uri("/metrics")).build()).body();
      assertThat(metrics)
          .as("no request reached the nodes route")
          .doesNotContain("kind=\"nodes\"")
          .containsPattern("qm_http_rejected_total\\{reason=\"malformed\"} 1");
      var once =
          RawHttp.one(
              t.server.port(),
              "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + t.token
                  + "\r\nConnection: close\r\n\r\n");
      assertThat(once.status()).isEqualTo(200);
    }
  }

  @Test
  void aFoldedOrdinaryHeaderIs400AndALineStartingWithASpaceInABodyIsNot() throws Exception {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var tab =
          exchangeUntilClosed(
              t.server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n\tb\r\n\r\n");
      assertThat(tab).extracting(RawHttp.Response::status).containsExactly(400);
      assertThat(tab.getFirst().body())
          .contains("header line 3 of the request is an obsolete line folding");
      // Pipelined: a JSON body with a line starting with a space (as a pretty-printer writes it), a
      // plain request, then a folded one: the first two are answered, the third refused.
      var json = "{\"kind\":\"Node\",\r\n \"metadata\":{\"name\":\"spaced\"},\n\t\"spec\":{}}";
      var auth = "Authorization: Bearer " + t.token + "\r\n";
      var responses =
          exchangeUntilClosed(
              t.server.port(),
              "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\n"
                  + auth
                  + "Content-Type: application/json\r\nContent-Length: "
                  + json.length()
                  + "\r\n\r\n"
                  + json
                  + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                  + "GET /healthz HTTP/1.1\r\nHost: x\r\nAccept: text/plain,\r\n application/json\r\n\r\n");
      assertThat(responses).extracting(RawHttp.Response::status).containsExactly(201, 200, 400);
      assertThat(api.get(Kinds.NODE, "spaced")).isPresent();
    }
  }

  @Test
  void aFoldSplitAcrossWritesIsRefused() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var head =
          "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n "
              + t.token
              + "\r\n\r\n";
      int fold = head.indexOf("\r\n ") + 2;
      // Cut right before the fold, between its CR and LF, and right after its space.
      for (int cut : new int[] {fold, fold - 1, fold + 1}) {
        var responses =
            exchangeUntilClosed(t.server.port(), head.substring(0, cut), head.substring(cut));
        assertThat(responses)
            .as("cut at %d", cut)
            .extracting(RawHttp.Response::status)
            .containsExactly(400);
      }
    }
  }

  /**
   * Writes {@code pieces} one flushed write at a time (a pause between, so each is read on its own)
   * and reads the answers; fails unless the server then closes the connection.
   */
  private static List<RawHttp.Response> exchangeUntilClosed(int port, String... pieces)
      throws Exception {
    try (var socket = new Socket()) {
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(10_000);
      for (int i = 0; i < pieces.length; i++) {
        if (i > 0) {
          Thread.sleep(150);
        }
        socket.getOutputStream().write(pieces[i].getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
      }
      var responses = RawHttp.readAll(socket.getInputStream());
      int next;
      try {
        next = socket.getInputStream().read();
      } catch (SocketTimeoutException e) {
        next = -2;
      }
      assertThat(next).as("the server closed the connection after %s", responses).isEqualTo(-1);
      return responses;
    }
  }

  @Test
  void aBodyCutShortByAHalfCloseIsAnswered() throws Exception {
    try (var t =
        TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withMaxBodyBytes(1024))) {
      var huge =
          halfClosed(
              t.server.port(),
              "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + t.token
                  + "\r\nContent-Length: 99999999999999\r\n\r\n{\"kind\":");
      assertThat(huge.status()).isEqualTo(413);
      assertThat(huge.isJson()).isTrue();
      var shortBody =
          halfClosed(
              t.server.port(),
              "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + t.token
                  + "\r\nContent-Length: 10\r\n\r\nabc");
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
