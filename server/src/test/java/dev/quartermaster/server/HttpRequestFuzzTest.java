package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.api.validation.ObjectValidator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The request path on any input. {@link #parse} drives the path, query and body decoding directly;
 * {@link #rawRequest} writes the bytes as they are to a real {@link ApiServer} on loopback (one per
 * JVM) and reads the answer.
 *
 * <p>The promise: a bad request is a 4xx {@link ApiError} in JSON from our handler, never a 5xx,
 * and the server answers {@code /healthz} afterwards. What the transport refuses itself (an
 * unreadable request line, a header too large) is a JSON error too: an HTML page, as the JDK's
 * HttpServer gave before the transport moved to Netty, fails. A connection closed without an answer
 * is counted in {@code target/fuzz/no-answer.txt}. {@code $TOKEN} in an input is replaced by the
 * admin token, so inputs get past authentication.
 */
class HttpRequestFuzzTest {
  private static final Set<String> WATCH_PARAMS =
      Set.of(HttpWire.PARAM_LABEL_SELECTOR, HttpWire.PARAM_WATCH, HttpWire.PARAM_REVISION);

  @FuzzTest
  void parse(byte[] bytes) {
    var text = new String(bytes, StandardCharsets.UTF_8);
    var newline = text.indexOf('\n');
    var target = newline < 0 ? text : text.substring(0, newline);
    var body =
        newline < 0 ? new byte[0] : text.substring(newline + 1).getBytes(StandardCharsets.UTF_8);
    var q = target.indexOf('?');
    var rawPath = HttpWire.API_PREFIX + (q < 0 ? target : target.substring(0, q));
    var rawQuery = q < 0 ? null : target.substring(q + 1);

    onlyClientErrors(
        () -> {
          var path = ApiPath.parse(rawPath);
          // The metrics label is one of four, never a name from the request.
          assertThat(path.route())
              .isIn(
                  HttpWire.API_PREFIX + "{plural}",
                  HttpWire.API_PREFIX + "{plural}/{name}",
                  HttpWire.API_PREFIX + "{plural}/{name}/status",
                  HttpWire.API_PREFIX + "tasks/{name}/log");
          switch (path) {
            case ApiPath.Item i -> assertThat(Names.isDnsLabel(i.name())).isTrue();
            case ApiPath.Status s -> assertThat(Names.isDnsLabel(s.name())).isTrue();
            case ApiPath.Log l -> assertThat(Names.isDnsLabel(l.name())).isTrue();
            case ApiPath.Collection c -> {}
          }
        });
    onlyClientErrors(
        () -> {
          var query = QueryParams.parse(rawQuery);
          LabelSelector.parse(query.get(HttpWire.PARAM_LABEL_SELECTOR).orElse(""));
          query.flag(HttpWire.PARAM_WATCH);
          assertThat(query.nonNegativeLong(HttpWire.PARAM_REVISION, 0)).isNotNegative();
          query.allowOnly(WATCH_PARAMS);
        });
    onlyClientErrors(() -> ObjectValidator.validateCreate(ObjectCodec.fromJson(body)));
  }

  /**
   * Runs {@code step}; what it may throw is an {@link ApiException} that the server answers with a
   * 4xx.
   */
  private static void onlyClientErrors(Runnable step) {
    try {
      step.run();
    } catch (ApiException e) {
      var error = ErrorResponses.toError(e, 1, "GET", "/fuzz");
      assertThat(error).isSameAs(e.error());
      assertThat(error.code()).isBetween(400, 499);
      assertThat(error.message()).isNotBlank();
      var reply = ErrorResponses.reply(error);
      assertThat(reply.status()).isEqualTo(error.code());
      assertThat(readError(reply.body())).isEqualTo(error.capped());
    }
  }

  // ---- raw bytes to a real server ----

  private static final AtomicLong NO_ANSWER = new AtomicLong();
  private static final Set<String> LOOPBACK =
      Set.of("127.0.0.1", "localhost", "::1", "0:0:0:0:0:0:0:1");
  private static TestServer server;

  private static synchronized TestServer server() {
    if (server == null) {
      try {
        var dir = Files.createTempDirectory("qm-http-fuzz");
        server = TestServer.start(new InMemoryApiClient(), dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(HttpRequestFuzzTest::report));
    }
    return server;
  }

  @FuzzTest
  void rawRequest(byte[] bytes) throws IOException {
    // Jazzer's SSRF detector flags every connection while fuzzing, and forgets what was allowed
    // when
    // fuzzing starts after the inputs' replay: allow ours, to loopback only, on every run.
    BugDetectors.allowNetworkConnections((host, port) -> LOOPBACK.contains(host));
    var t = server();
    var request = replaceToken(bytes, t.token);
    var answer = exchange(t.server.port(), request, startsWithHead(request), 1000);
    if (answer == null) {
      NO_ANSWER.incrementAndGet(); // closed without a word (a stream that never answered, say)
    } else {
      assertThat(answer.fromJdk()).as("an HTML error page: " + answer).isFalse();
      assertThat(answer.status()).as(answer.toString()).isBetween(100, 499);
      if (answer.status() >= 400 && answer.complete()) {
        assertThat(answer.contentType()).as(answer.toString()).startsWith("application/json");
        if (!answer.body().isEmpty()) {
          var error = readError(answer.body().getBytes(StandardCharsets.UTF_8));
          assertThat(error.code()).as(answer.toString()).isEqualTo(answer.status());
          assertThat(error.message()).isNotBlank();
        }
      }
    }
    var health =
        exchange(
            t.server.port(),
            "GET /healthz HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII),
            false,
            10_000);
    assertThat(health)
        .as("healthz after " + new String(request, StandardCharsets.ISO_8859_1))
        .isNotNull();
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("ok\n");
  }

  /** One answer: the status line's code, the headers we look at, and as much body as came. */
  record Answer(int status, String contentType, boolean complete, String body) {
    boolean fromJdk() {
      return body.startsWith("<h1>");
    }
  }

  private static boolean startsWithHead(byte[] request) {
    return new String(request, 0, Math.min(5, request.length), StandardCharsets.ISO_8859_1)
        .toUpperCase(Locale.ROOT)
        .startsWith("HEAD");
  }

  private static Answer exchange(int port, byte[] request, boolean headRequest, int timeoutMillis)
      throws IOException {
    try (var socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
      // Short for the request: a watch sends nothing until its first event (the JDK holds the
      // headers
      // until the first write) and never ends. Long for /healthz, which must answer, even on a busy
      // machine.
      socket.setSoTimeout(timeoutMillis);
      var out = socket.getOutputStream();
      try {
        out.write(request);
        out.flush();
        socket.shutdownOutput();
      } catch (IOException e) {
        // The server may answer and close before it has read everything (413, a rejected request
        // line).
      }
      var in = socket.getInputStream();
      while (true) {
        String head;
        try {
          head = readHead(in);
        } catch (SocketTimeoutException | java.net.SocketException e) {
          return null;
        }
        if (head == null) {
          return null;
        }
        var lines = head.split("\r\n");
        var parts = lines[0].split(" ", 3);
        int status = Integer.parseInt(parts[1]);
        if (status == 100) {
          continue; // Expect: 100-continue; the real answer follows
        }
        String type = "";
        long length = -1;
        for (int i = 1; i < lines.length; i++) {
          var colon = lines[i].indexOf(':');
          var name = lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT);
          var value = lines[i].substring(colon + 1).strip();
          if (name.equals("content-type")) {
            type = value;
          } else if (name.equals("content-length")) {
            length = Long.parseLong(value);
          }
        }
        if (length < 0 || headRequest) {
          return new Answer(status, type, false, ""); // a stream (watch), or no body
        }
        var body = new ByteArrayOutputStream();
        try {
          body.write(in.readNBytes((int) Math.min(length, 1 << 20)));
        } catch (SocketTimeoutException e) {
          return new Answer(status, type, false, body.toString(StandardCharsets.UTF_8));
        }
        return new Answer(
            status, type, body.size() == length, body.toString(StandardCharsets.UTF_8));
      }
    }
  }

  /** The status line and headers, or null if the connection closed first. */
  private static String readHead(InputStream in) throws IOException {
    var head = new ByteArrayOutputStream();
    int matched = 0;
    int b;
    while ((b = in.read()) != -1) {
      head.write(b);
      matched =
          (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1 : 0;
      if (matched == 4) {
        var text = head.toString(StandardCharsets.ISO_8859_1);
        return text.substring(0, text.length() - 4);
      }
    }
    return null;
  }

  private static byte[] replaceToken(byte[] bytes, String token) {
    var text = new String(bytes, StandardCharsets.ISO_8859_1);
    return text.replace("$TOKEN", token).getBytes(StandardCharsets.ISO_8859_1);
  }

  private static ApiError readError(byte[] body) {
    try {
      return ObjectCodec.json().readValue(body, ApiError.class);
    } catch (IOException e) {
      throw new AssertionError("not an ApiError: " + new String(body, StandardCharsets.UTF_8), e);
    }
  }

  private static void report() {
    var lines = "closed without an answer: " + NO_ANSWER.get() + "\n";
    System.err.print("HttpRequestFuzzTest " + lines);
    try {
      var file = Path.of("target", "fuzz", "no-answer.txt");
      Files.createDirectories(file.getParent());
      Files.writeString(file, lines);
    } catch (IOException e) {
      // the stderr line above has it
    }
    server.close();
  }
}
