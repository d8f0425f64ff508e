package dev.quartermaster.api.client.http;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ListPage;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.table.ObjectTable;
import dev.quartermaster.core.env.OutsideEnv;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * {@link ApiClient} over the server's HTTP API ({@link HttpWire}), authenticated with a bearer
 * token.
 *
 * <p>Every failure is the server's own {@link dev.quartermaster.api.error.ApiError}, unchanged; a
 * server that cannot be reached is {@code Unavailable}. Calls go over kept-alive connections of its
 * own ({@link KeptConnections}; {@link KeptConnection} says why not the JDK's or Apache's client);
 * a watch, whose answer lasts, over the JDK's client, read on a virtual thread that calls its
 * handler in order; a 410 answer becomes {@link WatchHandler#onGone}.
 *
 * <p>Given several servers (replicas of one cluster on a shared store), it talks to one at a time
 * and stays with the last that answered. A call that cannot connect to it (refused, no route,
 * connect timeout, unknown host: nothing was sent) goes on to the next, round them all once, within
 * the same call; so does a GET or a watch that failed after it was sent. A write that failed after
 * it was sent is never resent: its answer may have been lost after it landed, and only the caller
 * can tell (its retry meets {@code AlreadyExists} or {@code Conflict}); the next call starts at the
 * next server. When every server tried failed, the error names each and why.
 */
@OutsideEnv(
    "the HTTP client's socket deadlines and watch readers are I/O at the edge; the simulation calls the store directly")
public final class HttpApiClient implements ApiClient, AutoCloseable {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final List<URI> bases;
  private final AtomicInteger current = new AtomicInteger();
  private final String token;
  private final Duration requestTimeout;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final Optional<SSLContext> tls;

  /**
   * For watches, whose answers last until closed; built by the first watch, since building one
   * loads the JDK's default TLS context and CA store (~100 ms), a cost a one-shot command that
   * never watches should not pay. Empty until then; guarded by {@code this}.
   */
  private Optional<HttpClient> http = Optional.empty();

  private boolean closed; // guarded by this

  /** For every other call, one pool per server, in the order of {@link #bases}. */
  private final List<Connections> connections;

  private final Map<String, String> plainHeaders;
  private final Map<String, String> withJsonBody;
  private final Set<HttpWatch<?>> watches = ConcurrentHashMap.newKeySet();

  /** A client of the server at {@code baseUri} (e.g. {@code http://127.0.0.1:7443}). */
  public HttpApiClient(URI baseUri, String token) {
    this(baseUri, token, REQUEST_TIMEOUT);
  }

  /** As above; {@code requestTimeout} bounds every call but a watch, which lasts until closed. */
  public HttpApiClient(URI baseUri, String token, Duration requestTimeout) {
    this(baseUri, token, requestTimeout, Optional.empty());
  }

  /** A client of an {@code https} server, trusting what {@code tls} trusts ({@link TrustedCa}). */
  public HttpApiClient(URI baseUri, String token, Optional<SSLContext> tls) {
    this(baseUri, token, REQUEST_TIMEOUT, tls);
  }

  /**
   * A client of the servers {@code baseUris} (one cluster), {@code https} ones trusting what {@code
   * tls} trusts.
   */
  public static HttpApiClient of(List<URI> baseUris, String token, Optional<SSLContext> tls) {
    return new HttpApiClient(baseUris, token, REQUEST_TIMEOUT, tls);
  }

  private HttpApiClient(
      URI baseUri, String token, Duration requestTimeout, Optional<SSLContext> tls) {
    this(List.of(baseUri), token, requestTimeout, tls);
  }

  private HttpApiClient(
      List<URI> baseUris, String token, Duration requestTimeout, Optional<SSLContext> tls) {
    this(baseUris, token, requestTimeout, tls, KeptConnections::new);
  }

  /**
   * A client of the servers {@code baseUris} whose calls (all but watches) go over the connections
   * {@code opener} makes instead of the client's own.
   */
  public static HttpApiClient over(
      List<URI> baseUris, String token, Optional<SSLContext> tls, Connections.Opener opener) {
    return new HttpApiClient(baseUris, token, REQUEST_TIMEOUT, tls, opener);
  }

  private HttpApiClient(
      List<URI> baseUris,
      String token,
      Duration requestTimeout,
      Optional<SSLContext> tls,
      Connections.Opener opener) {
    if (baseUris.isEmpty()) {
      throw new IllegalArgumentException("no server given");
    }
    this.bases =
        baseUris.stream()
            .map(
                u -> {
                  var text = u.toString();
                  return URI.create(
                      text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
                })
            .toList();
    this.token = token;
    this.requestTimeout = requestTimeout;
    this.tls = tls;
    this.connections =
        bases.stream().map(base -> opener.to(base, tls, (int) CONNECT_TIMEOUT.toMillis())).toList();
    this.plainHeaders = Map.of("Authorization", "Bearer " + token, "Accept", HttpWire.JSON);
    this.withJsonBody =
        Map.of(
            "Authorization",
            "Bearer " + token,
            "Accept",
            HttpWire.JSON,
            "Content-Type",
            HttpWire.JSON);
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    var served = call("GET", HttpWire.objectPath(kind, name), Optional.empty());
    if (served.answer().status() == 404) {
      var error = ResponseErrors.fromResponse(404, served.answer().body(), served.uri());
      if (error.is(Reason.NotFound)) {
        return Optional.empty();
      }
      throw error;
    }
    return Optional.of(decodeObject(kind, success(served), served.uri()));
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    return list(kind, selector, "");
  }

  /** A page, read by the server at its first page's revision. */
  @Override
  public <T extends ApiObject> ObjectList<T> list(
      Kind<T> kind, LabelSelector selector, ListPage page) {
    return list(kind, selector, HttpWire.pageQuery(page));
  }

  private <T extends ApiObject> ObjectList<T> list(
      Kind<T> kind, LabelSelector selector, String pageQuery) {
    var query = selectorQuery(selector) + pageQuery;
    var served =
        call(
            "GET",
            HttpWire.collectionPath(kind) + (query.isEmpty() ? "" : "?" + query.substring(1)),
            Optional.empty());
    var uri = served.uri();
    var body = success(served);
    try {
      var document = ObjectCodec.json().readValue(body, ListDocument.class);
      var items = document.items().stream().map(o -> ObjectCodec.requireKind(o, kind)).toList();
      return new ObjectList<>(items, document.revision(), document.next());
    } catch (IOException | ApiException e) {
      throw ResponseErrors.undecodable(uri, e);
    }
  }

  /**
   * Asks the server to render the table ({@code as=table}): no object is decoded here, see {@link
   * ObjectTable}.
   */
  @Override
  public <T extends ApiObject> ObjectTable table(
      Kind<T> kind, LabelSelector selector, ListPage page, Instant now) {
    return tableAt(
        HttpWire.collectionPath(kind)
            + "?"
            + HttpWire.PARAM_AS
            + "="
            + HttpWire.AS_TABLE
            + selectorQuery(selector)
            + HttpWire.pageQuery(page));
  }

  @Override
  public <T extends ApiObject> ObjectTable table(
      Kind<T> kind, Optional<String> name, LabelSelector selector, Instant now) {
    var as = HttpWire.PARAM_AS + "=" + HttpWire.AS_TABLE;
    return tableAt(
        name.map(n -> HttpWire.objectPath(kind, n) + "?" + as)
            .orElseGet(() -> HttpWire.collectionPath(kind) + "?" + as + selectorQuery(selector)));
  }

  private ObjectTable tableAt(String path) {
    var served = call("GET", path, Optional.empty());
    var body = success(served);
    try {
      return ObjectTable.fromJson(body);
    } catch (IllegalArgumentException e) {
      throw ResponseErrors.undecodable(served.uri(), e);
    }
  }

  /** {@code &labelSelector=…}, or nothing for every object. */
  private static String selectorQuery(LabelSelector selector) {
    return selector.isEmpty()
        ? ""
        : "&"
            + HttpWire.PARAM_LABEL_SELECTOR
            + "="
            + HttpWire.encodeQueryValue(selector.toString());
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    var kind = Kinds.of(object);
    return write("POST", HttpWire.collectionPath(kind), object);
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    var kind = Kinds.of(object);
    return write("PUT", HttpWire.objectPath(kind, object.metadata().name()), object);
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    var kind = Kinds.of(object);
    return write("PUT", HttpWire.statusPath(kind, object.metadata().name()), object);
  }

  /**
   * A batch of one is that write's own request. The HTTP API has no multi-object transaction yet
   * (the controllers, which batch, run in the server's process), so a larger batch is refused
   * before anything is sent rather than applied one write at a time.
   */
  @Override
  public List<ApiObject> commit(List<Write> writes) {
    if (writes.size() != 1) {
      throw ApiException.badRequest(
          "a commit of "
              + writes.size()
              + " writes cannot be sent over HTTP: the API "
              + "applies one object per request; commit in-process, or write the objects one at a time",
          List.of());
    }
    return List.of(writes.getFirst().applyAlone(this));
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    var served = call("DELETE", HttpWire.objectPath(kind, name), Optional.empty());
    var uri = served.uri();
    var answer = served.answer();
    var object = decodeObject(kind, success(served), uri);
    // The header is the server's word; an older server without it is read from the object itself.
    var outcome =
        answer
            .header(HttpWire.DELETE_HEADER)
            .orElse(object.metadata().isDeleting() ? HttpWire.TERMINATING : HttpWire.DELETED);
    return switch (outcome) {
      case HttpWire.DELETED -> new DeleteResult.Deleted<>(object);
      case HttpWire.TERMINATING -> new DeleteResult.Terminating<>(object);
      default ->
          throw ResponseErrors.undecodable(
              uri, new IllegalStateException(HttpWire.DELETE_HEADER + " is '" + outcome + "'"));
    };
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    return watch(kind, afterRevision, LabelSelector.ALL, scope, handler);
  }

  /**
   * As {@link #watch(Kind, long, WatchHandler)}, but only objects matching {@code selector}: an
   * object that stops matching arrives as {@code DELETED}, one that starts matching as {@code
   * ADDED}. Returns once the server accepted the watch; bad requests throw, a compacted history
   * calls {@code onGone} before this returns.
   */
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, LabelSelector selector, WatchHandler<T> handler) {
    return watch(kind, afterRevision, selector, WatchScope.CLUSTER, handler);
  }

  private <T extends ApiObject> WatchHandle watch(
      Kind<T> kind,
      long afterRevision,
      LabelSelector selector,
      WatchScope scope,
      WatchHandler<T> handler) {
    var query =
        new StringBuilder(
            "?" + HttpWire.PARAM_WATCH + "=true&" + HttpWire.PARAM_REVISION + "=" + afterRevision);
    if (!selector.isEmpty()) {
      query
          .append('&')
          .append(HttpWire.PARAM_LABEL_SELECTOR)
          .append('=')
          .append(HttpWire.encodeQueryValue(selector.toString()));
    }
    if (scope instanceof WatchScope.Node node) {
      query
          .append('&')
          .append(HttpWire.PARAM_NODE)
          .append('=')
          .append(HttpWire.encodeQueryValue(node.name()));
    }
    var response = send(HttpWire.collectionPath(kind) + query, BodyHandlers.ofInputStream());
    var uri = response.request().uri();
    if (response.statusCode() != 200) {
      var body = readErrorBody(response.body());
      var error = ResponseErrors.fromResponse(response.statusCode(), body, uri);
      if (!error.is(Reason.Gone)) {
        throw error;
      }
      handler.onGone(compactedRevision(response));
      return () -> {};
    }
    var watch = new HttpWatch<>(kind, response.body(), handler, uri, watches::remove);
    watches.add(watch);
    watch.start(executor);
    return watch;
  }

  /**
   * A call under {@code /api/v1/} that is not about objects (node tokens): {@code method} on {@code
   * path} with an optional JSON body; the answer's body, or the server's refusal as an {@link
   * ApiException}.
   */
  public byte[] exchange(String method, String path, Optional<byte[]> json) {
    return success(call(method, HttpWire.API_PREFIX + path, json));
  }

  /**
   * A streamed answer under {@code /api/v1/} (a task's output, {@code tasks/<name>/log?…}): its
   * body as it comes, to be closed by the caller, or the server's refusal as an {@link
   * ApiException}. A read, so a server that cannot be reached is passed over for the next.
   */
  public java.io.InputStream stream(String pathAndQuery) {
    var response = send(HttpWire.API_PREFIX + pathAndQuery, BodyHandlers.ofInputStream());
    if (response.statusCode() != 200) {
      var body = readErrorBody(response.body());
      throw ResponseErrors.fromResponse(response.statusCode(), body, response.request().uri());
    }
    return response.body();
  }

  /** Ends every watch and releases the connections. */
  @Override
  public void close() {
    watches.forEach(HttpWatch::close);
    connections.forEach(Connections::close);
    synchronized (this) {
      closed = true;
      http.ifPresent(HttpClient::shutdownNow);
    }
    executor.shutdownNow();
  }

  private <T extends ApiObject> T write(String method, String path, T object) {
    var kind = Kinds.of(object);
    var served = call(method, path, Optional.of(ObjectCodec.toJson(object)));
    return decodeObject(kind, success(served), served.uri());
  }

  /**
   * One call on a kept connection, to the server calls go to now and on to the next ones as far as
   * {@code method} allows (see the class comment); a body is sent as JSON.
   *
   * @param pathAndQuery the request's path and query, already encoded
   */
  private ServedAnswer call(String method, String pathAndQuery, Optional<byte[]> json) {
    var headers = json.isPresent() ? withJsonBody : plainHeaders;
    // A POST or PUT says its length even when empty; a GET or DELETE has no body to speak of.
    var body =
        json.isPresent() || method.equals("GET") || method.equals("DELETE")
            ? json
            : Optional.of(new byte[0]);
    var tried = new Failures(bases.size());
    int first = current.get();
    for (int i = 0; i < bases.size(); i++) {
      int used = (first + i) % bases.size();
      var uri = URI.create(bases.get(used) + pathAndQuery);
      var target =
          uri.getRawPath()
              + (uri.getRawQuery() == null
                  ? ""
                  : "?" + uri.getRawQuery()); // with a base's own path
      try {
        var answer =
            connections
                .get(used)
                .exchange(
                    method, target, headers, body, System.nanoTime() + requestTimeout.toNanos());
        current.compareAndSet(
            first, used); // stay with the one that answered (unless another call moved on)
        return new ServedAnswer(uri, answer);
      } catch (NotConnected e) {
        if (e.reason() instanceof ClosedByInterruptException) {
          throw ResponseErrors.interrupted(uri);
        }
        tried.add(ResponseErrors.fromTransport(e.reason(), bases.get(used), uri));
      } catch (ClosedByInterruptException e) {
        throw ResponseErrors.interrupted(uri);
      } catch (IOException e) {
        tried.add(ResponseErrors.fromTransport(e, bases.get(used), uri));
        if (!method.equals("GET")) {
          // Sent, and perhaps applied: not resent. The next call starts at the next server.
          current.compareAndSet(first, (used + 1) % bases.size());
          throw tried.error(i + 1 < bases.size());
        }
      }
    }
    current.compareAndSet(first, (first + 1) % bases.size());
    throw tried.error(false);
  }

  /** The server calls go to now. */
  public URI server() {
    return bases.get(current.get());
  }

  /**
   * Opens a watch ({@code GET pathAndQuery}) on the server calls go to now, or the next ones: a
   * watch is a read, so any failure to get its answer's head moves on. The answer's request names
   * the server that gave it.
   */
  private <B> HttpResponse<B> send(String pathAndQuery, BodyHandler<B> handler) {
    var client = watchClient();
    var tried = new Failures(bases.size());
    int first = current.get();
    for (int i = 0; i < bases.size(); i++) {
      int used = (first + i) % bases.size();
      // No request timeout: a watch lasts until closed; the server's bookmarks keep the line busy.
      var request =
          HttpRequest.newBuilder(URI.create(bases.get(used) + pathAndQuery))
              .header("Authorization", "Bearer " + token)
              .header("Accept", HttpWire.JSON)
              .GET()
              .build();
      try {
        var response = client.send(request, handler);
        current.compareAndSet(first, used);
        return response;
      } catch (IOException e) {
        tried.add(ResponseErrors.fromTransport(e, bases.get(used), request.uri()));
      } catch (InterruptedException e) {
        throw ResponseErrors.interrupted(request.uri());
      }
    }
    current.compareAndSet(first, (first + 1) % bases.size());
    throw tried.error(false);
  }

  /** The JDK client for watches, built on first use. */
  private synchronized HttpClient watchClient() {
    if (closed) {
      throw new ApiException(Reason.Unavailable, "the client was closed");
    }
    if (http.isEmpty()) {
      var builder =
          HttpClient.newBuilder()
              .version(
                  HttpClient.Version
                      .HTTP_1_1) // the server speaks HTTP/1.1 only; skip the h2c upgrade dance
              .connectTimeout(CONNECT_TIMEOUT)
              .executor(executor);
      tls.ifPresent(builder::sslContext);
      http = Optional.of(builder.build());
    }
    return http.get();
  }

  /** Whether a watch has built the JDK client yet (for the test that no plain call does). */
  synchronized boolean watchClientBuilt() {
    return http.isPresent();
  }

  private static byte[] success(ServedAnswer served) {
    var answer = served.answer();
    if (answer.status() / 100 != 2) {
      throw ResponseErrors.fromResponse(answer.status(), answer.body(), served.uri());
    }
    return answer.body();
  }

  private static <T extends ApiObject> T decodeObject(Kind<T> kind, byte[] body, URI uri) {
    try {
      return ObjectCodec.fromJson(body, kind);
    } catch (ApiException e) {
      throw ResponseErrors.undecodable(uri, e);
    }
  }

  /** From the header; 0 ("unknown, re-list") when a server leaves it out or garbles it. */
  private static long compactedRevision(HttpResponse<?> response) {
    try {
      return response
          .headers()
          .firstValue(HttpWire.COMPACTED_REVISION_HEADER)
          .map(Long::parseLong)
          .orElse(0L);
    } catch (NumberFormatException e) {
      return 0L;
    }
  }

  private static byte[] readErrorBody(InputStream body) {
    try (body) {
      return body.readNBytes(
          1 << 20); // an error is small; never let a broken server make us buffer more
    } catch (IOException e) {
      return new byte[0];
    }
  }
}
