package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where one request ends and the next begins, on the real server over a raw socket: request
 * smuggling (RFC 9112 6.1, 6.3), the Host every HTTP/1.1 request carries (3.2), and how much of a
 * body over the limit the server reads before it closes.
 */
@Timeout(120)
class RequestFramingTest {
  @TempDir Path dataDir;

  /**
   * Status lines anywhere in what came back: a smuggled answer follows a body without a newline.
   */
  private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] (\\d{3}) ");

  /**
   * A framing variant: the head's framing lines, what follows the head, and the status expected.
   */
  private record Variant(String name, String version, String framing, String rest, int status) {}

  /**
   * CL.TE, TE.CL and TE.TE variants: a front proxy that frames the body one way and this server
   * another would see the smuggled request as body, while this server reads it as a request. Each
   * must be refused with the connection closed, so no smuggled request is ever read.
   */
  private static List<Variant> corpus(String smuggled) {
    int n = smuggled.length();
    var chunk = Integer.toHexString(n) + "\r\n" + smuggled + "\r\n0\r\n\r\n";
    var end = "0\r\n\r\n" + smuggled;
    var te = "Transfer-Encoding: ";
    return List.of(
        // Codings the server does not implement: the codec would ignore them and read no body.
        new Variant("gzip", "1.1", te + "gzip\r\n", smuggled, 501),
        new Variant("identity", "1.1", te + "identity\r\n", smuggled, 501),
        new Variant("xchunked", "1.1", te + "xchunked\r\n", smuggled, 501),
        new Variant("chunked with a parameter", "1.1", te + "chunked;x=1\r\n", end, 501),
        new Variant("quoted chunked", "1.1", te + "\"chunked\"\r\n", smuggled, 501),
        new Variant("gzip, chunked", "1.1", te + "gzip, chunked\r\n", end, 501),
        new Variant("chunked, gzip", "1.1", te + "chunked, gzip\r\n", smuggled, 400),
        new Variant("identity with CL", "1.1", te + "identity\r\nContent-Length: 0\r\n", end, 400),
        // Lists that are not one coding.
        new Variant("chunked, chunked", "1.1", te + "chunked, chunked\r\n", end, 400),
        new Variant("empty list elements", "1.1", te + "chunked,,\r\n", end, 400),
        new Variant("empty", "1.1", te + "\r\n", smuggled, 400),
        // TE.TE: two fields, of which a proxy may read either.
        new Variant("chunked twice", "1.1", te + "chunked\r\n" + te + "chunked\r\n", end, 400),
        new Variant("chunked then x", "1.1", te + "chunked\r\ntransfer-encoding: x\r\n", end, 400),
        new Variant("x then chunked", "1.1", te + "x\r\n" + te + "chunked\r\n", end, 400),
        new Variant("obs-fold", "1.1", te + "x\r\n chunked\r\n", end, 400),
        new Variant("space before colon", "1.1", "Transfer-Encoding : chunked\r\n", end, 400),
        new Variant("vertical tab", "1.1", "Transfer-Encoding:\u000bchunked\r\n", end, 400),
        // CL.TE and TE.CL: both framings given.
        new Variant("CL.TE", "1.1", "Content-Length: 5\r\n" + te + "chunked\r\n", end, 400),
        new Variant("TE.CL", "1.1", te + "chunked\r\nContent-Length: 4\r\n", chunk, 400),
        new Variant("CL.CL", "1.1", "Content-Length: 0\r\nContent-Length: " + n + "\r\n", "", 400),
        new Variant("CL list", "1.1", "Content-Length: 0, " + n + "\r\n", smuggled, 400),
        new Variant("CL with a sign", "1.1", "Content-Length: +" + n + "\r\n", smuggled, 400),
        new Variant(
            "CL in hex",
            "1.1",
            "Content-Length: 0x" + Integer.toHexString(n) + "\r\n",
            smuggled,
            400),
        new Variant("CL negative", "1.1", "Content-Length: -" + n + "\r\n", smuggled, 400),
        new Variant("CL empty", "1.1", "Content-Length:\r\n", smuggled, 400),
        // HTTP/1.0 has no transfer codings: the framing cannot be trusted.
        new Variant("HTTP/1.0 chunked", "1.0", te + "chunked\r\n", end, 400));
  }

  @Test
  void noFramingVariantGetsASmuggledRequestRead() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var auth = "Authorization: Bearer " + t.token + "\r\n";
      var smuggled = "GET /api/v1/tokens HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n";
      // The control: a well-framed chunked request with the same request pipelined after it gets
      // both answered (this server, over a store in process, keeps no tokens: 404); so one answer
      // below means no smuggled request was read.
      var control =
          untilClosed(
              t.server.port(),
              "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\n"
                  + auth
                  + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                  + smuggled.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
      assertThat(statuses(control)).as(control).containsExactly(200, 404);
      assertThat(control).contains("keeps no node tokens");

      var failures = new ArrayList<String>();
      for (var v : corpus(smuggled)) {
        var request =
            "GET /api/v1/nodes HTTP/"
                + v.version()
                + "\r\nHost: x\r\n"
                + auth
                + v.framing()
                + "\r\n"
                + v.rest();
        var answer = untilClosed(t.server.port(), request);
        var statuses = statuses(answer);
        if (!statuses.equals(List.of(v.status()))
            || answer.contains("node tokens")
            || !answer.toLowerCase(java.util.Locale.ROOT).contains("connection: close")
            || !answer.contains("{\"code\":" + v.status())) {
          failures.add(v.name() + ": " + statuses + " " + answer.replace("\r\n", " | "));
        }
      }
      assertThat(failures).as("variants answered other than as one refusal, then closed").isEmpty();
    }
  }

  @Test
  void anUnknownCodingIs501NamingIt() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var answer =
          untilClosed(
              t.server.port(),
              "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nxyz");
      assertThat(answer)
          .startsWith("HTTP/1.1 501 Not Implemented")
          .contains(
              "\"reason\":\"NotImplemented\"",
              "transfer coding 'gzip' is not implemented (RFC 9112 6.1)");
    }
  }

  @Test
  void bothFramingsOrACodingInHttp10AreRefusedNamingTheRule() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      for (var coding : new String[] {"chunked", "identity"}) {
        var both =
            untilClosed(
                t.server.port(),
                "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    + "Transfer-Encoding: "
                    + coding
                    + "\r\n\r\n0\r\n\r\n");
        assertThat(statuses(both)).as(coding).containsExactly(400);
        assertThat(both)
            .as(coding)
            .contains("both Transfer-Encoding and Content-Length (RFC 9112 6.3)");
      }
      var old =
          untilClosed(
              t.server.port(),
              "POST /api/v1/nodes HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
      assertThat(statuses(old)).containsExactly(400);
      assertThat(old).contains("an HTTP/1.0 request has no Transfer-Encoding (RFC 9112 6.1)");
    }
  }

  @Test
  void anHttp11RequestWithoutOneHostIs400() throws Exception {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      int port = t.server.port();
      var auth = "Authorization: Bearer " + t.token + "\r\n";
      var none = untilClosed(port, "GET /api/v1/nodes HTTP/1.1\r\n" + auth + "\r\n");
      assertThat(statuses(none)).containsExactly(400);
      assertThat(none)
          .contains("an HTTP/1.1 request must carry a Host header (RFC 9112 3.2)")
          .doesNotContain("\"items\"");
      var two = untilClosed(port, "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
      assertThat(statuses(two)).containsExactly(400);
      assertThat(two).contains("header host is given 2 times");
      // HTTP/1.0 has no Host requirement; an empty Host is what a target without authority sends.
      assertThat(statuses(untilClosed(port, "GET /healthz HTTP/1.0\r\n\r\n"))).containsExactly(200);
      assertThat(
              statuses(
                  untilClosed(port, "GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n")))
          .containsExactly(200);
    }
  }

  /**
   * A client that sends a 100 MiB chunked body to a 1 KiB limit gets 413 and the connection closed
   * after the server read at most the limit plus its drain cap: what the client got to write is
   * bounded by that and the two sockets' buffers, far below the body.
   */
  @Test
  void aChunkedBodyOverTheLimitIs413AndTheServerStopsReading() throws Exception {
    try (var t =
        TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withMaxBodyBytes(1024))) {
      long body = 100L << 20;
      var written = new AtomicLong();
      var received = new ByteArrayOutputStream();
      try (var socket = new Socket()) {
        socket.setSendBufferSize(64 * 1024);
        socket.connect(new InetSocketAddress("127.0.0.1", t.server.port()), 5_000);
        socket.setSoTimeout(60_000);
        var reader =
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        socket.getInputStream().transferTo(received);
                      } catch (IOException e) {
                        // reset after the answer: what came before it is kept
                      }
                    });
        var out = socket.getOutputStream();
        var piece = new byte[64 * 1024];
        java.util.Arrays.fill(piece, (byte) 'x');
        var chunkHead = (Integer.toHexString(piece.length) + "\r\n").getBytes();
        try {
          out.write(
              ("POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                      + t.token
                      + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
          while (written.get() < body) {
            out.write(chunkHead);
            out.write(piece);
            out.write("\r\n".getBytes());
            written.addAndGet(piece.length);
          }
          out.write("0\r\n\r\n".getBytes());
        } catch (IOException e) {
          // the server closed: what it accepted until then is what was written
        }
        reader.join();
      }
      var answer = received.toString(StandardCharsets.ISO_8859_1);
      assertThat(statuses(answer)).as(answer).containsExactly(413);
      assertThat(answer)
          .contains(
              "\"reason\":\"PayloadTooLarge\"",
              "request body is more than 1024 bytes; the limit is 1024 bytes")
          .containsIgnoringCase("connection: close");
      // The server reads the limit and at most 4 MiB more; the rest up to this bound is what the
      // client's 64 KiB send buffer and the server's receive buffer (a few MiB) held.
      assertThat(written.get())
          .as("bytes of body written before the server closed")
          .isLessThan(24L << 20);
    }
  }

  /**
   * What follows a body refused with 413, a broken chunk even, is dropped: never a second answer.
   */
  @Test
  void afterA413NothingMoreIsAnswered() throws Exception {
    try (var t =
        TestServer.start(new InMemoryApiClient(), dataDir, c -> c.withMaxBodyBytes(1024))) {
      try (var socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", t.server.port()), 5_000);
        socket.setSoTimeout(10_000);
        var out = socket.getOutputStream();
        out.write(
            ("POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + t.token
                    + "\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n"
                    + "x".repeat(0x800)
                    + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        var in = socket.getInputStream();
        var received = new ByteArrayOutputStream();
        // The 413 is out (its body ends with '}') before the broken chunk is sent.
        for (int b; !received.toString(StandardCharsets.ISO_8859_1).endsWith("}"); ) {
          b = in.read();
          if (b < 0) {
            break;
          }
          received.write(b);
        }
        out.write("zz\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        try {
          readToEnd(in, received);
        } catch (java.net.SocketException e) {
          // a reset after the answer: what came before it counts
        }
        var answer = received.toString(StandardCharsets.ISO_8859_1);
        assertThat(statuses(answer)).as(answer).containsExactly(413);
      }
    }
  }

  /** Writes {@code request} and reads until the server closes; fails if it keeps the connection. */
  private static String untilClosed(int port, String request) throws IOException {
    try (var socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      var received = new ByteArrayOutputStream();
      try {
        readToEnd(socket.getInputStream(), received);
      } catch (SocketTimeoutException e) {
        throw new AssertionError(
            "the server kept the connection open after: "
                + received.toString(StandardCharsets.ISO_8859_1),
            e);
      } catch (java.net.SocketException e) {
        // a reset after the answer (the server closed with the rest unread): the answer counts
      }
      return received.toString(StandardCharsets.ISO_8859_1);
    }
  }

  private static void readToEnd(InputStream in, ByteArrayOutputStream into) throws IOException {
    var buffer = new byte[8192];
    for (int n; (n = in.read(buffer)) != -1; ) {
      into.write(buffer, 0, n);
    }
  }

  private static List<Integer> statuses(String answer) {
    var out = new ArrayList<Integer>();
    var m = STATUS_LINE.matcher(answer);
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)));
    }
    return out;
  }
}
