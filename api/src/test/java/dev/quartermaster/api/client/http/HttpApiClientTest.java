package dev.quartermaster.api.client.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client against a scripted server: what it does with answers a real server rarely gives. */
@Timeout(30)
@SuppressWarnings("try") // watch handles are closed by try-with-resources on purpose
class HttpApiClientTest {
  private static final Node NODE = new Node(ObjectMeta.named("gpu-1").withRevision(4), null, null);

  /** What the scripted server answers: status, headers, body. */
  private record Answer(int status, Map<String, String> headers, String body) {}

  private final AtomicReference<Answer> answer = new AtomicReference<>();
  private final AtomicReference<String> lastAuthorization = new AtomicReference<>();
  private final AtomicReference<String> lastMethod = new AtomicReference<>();
  private HttpServer server;
  private HttpApiClient client;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::answer);
    server.start();
    client =
        new HttpApiClient(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"), "s3cret");
  }

  @AfterEach
  void stop() {
    client.close();
    server.stop(0);
  }

  private void answer(HttpExchange exchange) throws IOException {
    lastAuthorization.set(exchange.getRequestHeaders().getFirst("Authorization"));
    lastMethod.set(exchange.getRequestMethod());
    var a = answer.get();
    a.headers().forEach(exchange.getResponseHeaders()::set);
    var bytes = a.body().getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(a.status(), bytes.length == 0 ? -1 : bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String json(Object value) {
    try {
      return ObjectCodec.json().writeValueAsString(value);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void sendsTheBearerTokenAndDecodesObjects() {
    answer.set(
        new Answer(200, Map.of(), new String(ObjectCodec.toJson(NODE), StandardCharsets.UTF_8)));
    assertThat(client.get(Kinds.NODE, "gpu-1")).contains(NODE);
    assertThat(lastAuthorization.get()).isEqualTo("Bearer s3cret");
  }

  /** A port nothing listens on: connections to it are refused. */
  private static URI deadServer() throws IOException {
    try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return URI.create("http://127.0.0.1:" + s.getLocalPort()); // closed again on return
    }
  }

  private URI liveServer() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private void answerWithTheNode() {
    answer.set(
        new Answer(200, Map.of(), new String(ObjectCodec.toJson(NODE), StandardCharsets.UTF_8)));
  }

  /**
   * Two servers of one cluster, the first down: the same call goes on to the other, reads and
   * writes alike (nothing reached the first, so nothing can have landed there), and the client
   * stays with the one that answered.
   */
  @Test
  void aCallThatCannotConnectGoesOnToTheNextServer() throws IOException {
    var up = liveServer();
    answerWithTheNode();
    try (var pair = HttpApiClient.of(List.of(deadServer(), up), "s3cret", Optional.empty())) {
      assertThat(pair.get(Kinds.NODE, "gpu-1")).contains(NODE);
      assertThat(lastAuthorization.get()).isEqualTo("Bearer s3cret");
      assertThat(pair.server()).as("it stays with the one that answered").isEqualTo(up);
    }
    try (var pair = HttpApiClient.of(List.of(deadServer(), up), "s3cret", Optional.empty())) {
      assertThat(pair.update(NODE)).as("a write that was never sent goes on too").isEqualTo(NODE);
      assertThat(lastMethod.get()).isEqualTo("PUT");
    }
  }

  @Test
  void anUnknownHostIsSkippedLikeADeadServer() {
    answerWithTheNode();
    try (var pair =
        HttpApiClient.of(
            List.of(URI.create("http://no-such-host.invalid:7480"), liveServer()),
            "s3cret",
            Optional.empty())) {
      assertThat(pair.get(Kinds.NODE, "gpu-1")).contains(NODE);
    }
  }

  @Test
  void whenNoServerAnswersTheErrorNamesEachAndWhy() throws IOException {
    var first = deadServer();
    var second = deadServer();
    try (var pair = HttpApiClient.of(List.of(first, second), "s3cret", Optional.empty())) {
      var e = catchThrowableOfType(ApiException.class, () -> pair.create(NODE));
      assertThat(e.reason()).isEqualTo(Reason.Unavailable);
      assertThat(e.getMessage())
          .startsWith("none of the 2 servers answered: ")
          .contains("cannot reach the server at " + first + ": connection refused")
          .contains("cannot reach the server at " + second + ": connection refused");
    }
  }

  /**
   * The first server takes the request and drops the connection without an answer: a GET is safe to
   * send again and goes on to the next server; a write may have landed and is not resent.
   */
  @Test
  void afterTheRequestWasSentOnlyAGetGoesOnToTheNextServer() throws Exception {
    answerWithTheNode();
    try (var dropper = new RequestDropper()) {
      try (var pair =
          HttpApiClient.of(List.of(dropper.uri(), liveServer()), "s3cret", Optional.empty())) {
        assertThat(pair.get(Kinds.NODE, "gpu-1")).contains(NODE);
        assertThat(dropper.requests()).as("the GET went to the dropper first").isEqualTo(1);
        assertThat(lastMethod.get()).isEqualTo("GET");
      }
      lastMethod.set(null);
      try (var pair =
          HttpApiClient.of(List.of(dropper.uri(), liveServer()), "s3cret", Optional.empty())) {
        var e = catchThrowableOfType(ApiException.class, () -> pair.update(NODE));
        assertThat(e.reason()).isEqualTo(Reason.Unavailable);
        assertThat(e.getMessage())
            .contains(dropper.uri().toString())
            .contains("not sent to the other server");
        assertThat(dropper.requests()).isEqualTo(2);
        assertThat(lastMethod.get()).as("the write reached no other server").isNull();
        assertThat(pair.server())
            .as("the next call starts at the next server")
            .isEqualTo(liveServer());
      }
    }
  }

  @Test
  void aWatchThatCannotConnectGoesOnToTheNextServer() throws Exception {
    answer.set(
        new Answer(
            410,
            Map.of(HttpWire.COMPACTED_REVISION_HEADER, "41"),
            json(ApiError.of(Reason.Gone, "compacted"))));
    var heard = new Recording();
    try (var pair =
        HttpApiClient.of(List.of(deadServer(), liveServer()), "s3cret", Optional.empty())) {
      pair.watch(Kinds.NODE, 3, heard).close();
      assertThat(heard.next()).isEqualTo("gone 41");
      assertThat(pair.server()).isEqualTo(liveServer());
    }
  }

  /** Building the JDK's client loads its TLS context and CA store: only a watch needs it. */
  @Test
  void onlyAWatchBuildsTheJdkClient() throws InterruptedException {
    answerWithTheNode();
    client.get(Kinds.NODE, "gpu-1");
    client.update(NODE);
    assertThat(client.watchClientBuilt()).isFalse();
    answer.set(
        new Answer(
            410,
            Map.of(HttpWire.COMPACTED_REVISION_HEADER, "41"),
            json(ApiError.of(Reason.Gone, "compacted"))));
    var heard = new Recording();
    client.watch(Kinds.NODE, 3, heard).close();
    assertThat(heard.next()).isEqualTo("gone 41");
    assertThat(client.watchClientBuilt()).isTrue();
  }

  @Test
  void serverErrorsComeBackExactly() {
    var error = new ApiError(409, Reason.Conflict, "node/gpu-1 was modified", java.util.List.of());
    answer.set(new Answer(409, Map.of(), json(error)));
    var e = catchThrowableOfType(ApiException.class, () -> client.update(NODE));
    assertThat(e.error()).isEqualTo(error);

    answer.set(
        new Answer(404, Map.of(), json(ApiError.of(Reason.NotFound, "node/gpu-1 not found"))));
    assertThat(client.get(Kinds.NODE, "gpu-1")).isEmpty();
  }

  @Test
  void aBodyThatIsNotAnApiErrorStillBecomesOne() {
    answer.set(new Answer(502, Map.of(), "<html>Bad Gateway</html>"));
    var e = catchThrowableOfType(ApiException.class, () -> client.list(Kinds.NODE));
    assertThat(e.reason()).isEqualTo(Reason.Unavailable);
    assertThat(e.getMessage()).contains("HTTP 502").contains("Bad Gateway");
  }

  @Test
  void deleteOutcomeComesFromTheHeader() {
    var body = new String(ObjectCodec.toJson(NODE), StandardCharsets.UTF_8);
    answer.set(new Answer(200, Map.of(HttpWire.DELETE_HEADER, HttpWire.TERMINATING), body));
    assertThat(client.delete(Kinds.NODE, "gpu-1")).isInstanceOf(DeleteResult.Terminating.class);
    answer.set(new Answer(200, Map.of(HttpWire.DELETE_HEADER, HttpWire.DELETED), body));
    assertThat(client.delete(Kinds.NODE, "gpu-1")).isInstanceOf(DeleteResult.Deleted.class);
  }

  @Test
  void watch410CallsOnGoneWithTheHeadersRevision() throws InterruptedException {
    answer.set(
        new Answer(
            410,
            Map.of(HttpWire.COMPACTED_REVISION_HEADER, "41"),
            json(ApiError.of(Reason.Gone, "compacted"))));
    var heard = new Recording();
    client.watch(Kinds.NODE, 3, heard).close();
    assertThat(heard.next()).isEqualTo("gone 41");
  }

  @Test
  void watchReadsLinesInOrderThenReportsTheEnd() throws InterruptedException {
    var lines =
        json(WatchLine.event(new WatchEvent<>(WatchEvent.Type.ADDED, NODE)))
            + "\n"
            + json(WatchLine.bookmark(4))
            + "\n"
            + json(
                WatchLine.event(
                    new WatchEvent<>(
                        WatchEvent.Type.DELETED,
                        NODE.withMetadata(NODE.metadata().withRevision(5)))))
            + "\n";
    answer.set(new Answer(200, Map.of(), lines));
    var heard = new Recording();
    try (var watch = client.watch(Kinds.NODE, 3, heard)) {
      assertThat(heard.next()).isEqualTo("ADDED gpu-1@4");
      assertThat(heard.next()).isEqualTo("DELETED gpu-1@5");
      assertThat(heard.next()).startsWith("closed ").contains("ended the watch stream");
    }
  }

  @Test
  void anUndecodableLineEndsTheWatch() throws InterruptedException {
    answer.set(new Answer(200, Map.of(), "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Gizmo\"}}\n"));
    var heard = new Recording();
    try (var watch = client.watch(Kinds.NODE, 0, heard)) {
      assertThat(heard.next()).startsWith("closed ").contains("does not decode");
    }
  }

  /** Records what a watch reported as short strings, for bounded waiting. */
  private static final class Recording implements WatchHandler<Node> {
    private final BlockingQueue<String> heard = new LinkedBlockingQueue<>();

    @Override
    public void onEvent(WatchEvent<Node> event) {
      heard.add(event.type() + " " + event.object().metadata().name() + "@" + event.revision());
    }

    @Override
    public void onGone(long compactedRevision) {
      heard.add("gone " + compactedRevision);
    }

    @Override
    public void onClosed(String reason) {
      heard.add("closed " + reason);
    }

    String next() throws InterruptedException {
      var item = heard.poll(10, TimeUnit.SECONDS);
      assertThat(item).as("something heard within 10 s").isNotNull();
      return item;
    }
  }
}
