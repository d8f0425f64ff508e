package dev.quartermaster.api.client.http;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
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
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@link ApiClient} over the server's HTTP API ({@link HttpWire}), authenticated with a bearer token.
 *
 * <p>Every failure is the server's own {@link dev.quartermaster.api.error.ApiError}, unchanged; a
 * server that cannot be reached is {@code Unavailable}. Calls go over kept-alive connections of its
 * own ({@link KeptConnections}); a watch, whose answer lasts, over the JDK's client, read on a virtual
 * thread that calls its handler in order; a 410 answer becomes {@link WatchHandler#onGone}.
 *
 * <p>Given several servers (replicas of one cluster on a shared store), it talks to one at a time;
 * a call that cannot reach it fails {@code Unavailable} as always, and the next call goes to the
 * next server. A failed call is never resent on its own: a write whose answer was lost may have
 * landed, and only the caller can tell (its retry meets {@code AlreadyExists} or {@code Conflict}).
 */
public final class HttpApiClient implements ApiClient, AutoCloseable {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final List<URI> bases;
  private final AtomicInteger current = new AtomicInteger();
  private final String token;
  private final Duration requestTimeout;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  /** For watches, whose answers last until closed. */
  private final HttpClient http;
  /** For every other call, one pool per server, in the order of {@link #bases}. */
  private final List<KeptConnections> connections;
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

  /** A client of the servers {@code baseUris} (one cluster), {@code https} ones trusting what {@code tls} trusts. */
  public static HttpApiClient of(List<URI> baseUris, String token, Optional<SSLContext> tls) {
    return new HttpApiClient(baseUris, token, REQUEST_TIMEOUT, tls);
  }

  private HttpApiClient(URI baseUri, String token, Duration requestTimeout, Optional<SSLContext> tls) {
    this(List.of(baseUri), token, requestTimeout, tls);
  }

  private HttpApiClient(List<URI> baseUris, String token, Duration requestTimeout, Optional<SSLContext> tls) {
    if (baseUris.isEmpty()) {
      throw new IllegalArgumentException("no server given");
    }
    this.bases = baseUris.stream().map(u -> {
      var text = u.toString();
      return URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    }).toList();
    this.token = token;
    this.requestTimeout = requestTimeout;
    var builder = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1) // the server speaks HTTP/1.1 only; skip the h2c upgrade dance
        .connectTimeout(CONNECT_TIMEOUT)
        .executor(executor);
    tls.ifPresent(builder::sslContext);
    this.http = builder.build();
    this.connections = bases.stream()
        .map(base -> new KeptConnections(base, tls, (int) CONNECT_TIMEOUT.toMillis())).toList();
    this.plainHeaders = Map.of("Authorization", "Bearer " + token, "Accept", HttpWire.JSON);
    this.withJsonBody = Map.of("Authorization", "Bearer " + token, "Accept", HttpWire.JSON,
        "Content-Type", HttpWire.JSON);
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    var uri = uri(HttpWire.objectPath(kind, name));
    var answer = call("GET", uri, Optional.empty());
    if (answer.status() == 404) {
      var error = ResponseErrors.fromResponse(404, answer.body(), uri);
      if (error.is(Reason.NotFound)) {
        return Optional.empty();
      }
      throw error;
    }
    return Optional.of(decodeObject(kind, success(answer, uri), uri));
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    var query = selector.isEmpty() ? "" : "?" + HttpWire.PARAM_LABEL_SELECTOR + "=" + HttpWire.encodeQueryValue(selector.toString());
    var uri = uri(HttpWire.collectionPath(kind) + query);
    var body = success(call("GET", uri, Optional.empty()), uri);
    try {
      var document = ObjectCodec.json().readValue(body, ListDocument.class);
      var items = document.items().stream().map(o -> ObjectCodec.requireKind(o, kind)).toList();
      return new ObjectList<>(items, document.revision());
    } catch (IOException | ApiException e) {
      throw ResponseErrors.undecodable(uri, e);
    }
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    var kind = Kinds.of(object);
    return write("POST", uri(HttpWire.collectionPath(kind)), object);
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    var kind = Kinds.of(object);
    return write("PUT", uri(HttpWire.objectPath(kind, object.metadata().name())), object);
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    var kind = Kinds.of(object);
    return write("PUT", uri(HttpWire.statusPath(kind, object.metadata().name())), object);
  }

  /**
   * A batch of one is that write's own request. The HTTP API has no multi-object transaction yet
   * (the controllers, which batch, run in the server's process), so a larger batch is refused
   * before anything is sent rather than applied one write at a time.
   */
  @Override
  public List<ApiObject> commit(List<Write> writes) {
    if (writes.size() != 1) {
      throw ApiException.badRequest("a commit of " + writes.size() + " writes cannot be sent over HTTP: the API "
          + "applies one object per request; commit in-process, or write the objects one at a time", List.of());
    }
    return List.of(writes.getFirst().applyAlone(this));
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    var uri = uri(HttpWire.objectPath(kind, name));
    var answer = call("DELETE", uri, Optional.empty());
    var object = decodeObject(kind, success(answer, uri), uri);
    // The header is the server's word; an older server without it is read from the object itself.
    var outcome = answer.header(HttpWire.DELETE_HEADER)
        .orElse(object.metadata().isDeleting() ? HttpWire.TERMINATING : HttpWire.DELETED);
    return switch (outcome) {
      case HttpWire.DELETED -> new DeleteResult.Deleted<>(object);
      case HttpWire.TERMINATING -> new DeleteResult.Terminating<>(object);
      default -> throw ResponseErrors.undecodable(uri,
          new IllegalStateException(HttpWire.DELETE_HEADER + " is '" + outcome + "'"));
    };
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(Kind<T> kind, long afterRevision, WatchHandler<T> handler) {
    return watch(kind, afterRevision, LabelSelector.ALL, handler);
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(Kind<T> kind, long afterRevision, WatchScope scope,
      WatchHandler<T> handler) {
    return watch(kind, afterRevision, LabelSelector.ALL, scope, handler);
  }

  /**
   * As {@link #watch(Kind, long, WatchHandler)}, but only objects matching {@code selector}: an
   * object that stops matching arrives as {@code DELETED}, one that starts matching as {@code ADDED}.
   * Returns once the server accepted the watch; bad requests throw, a compacted history calls
   * {@code onGone} before this returns.
   */
  public <T extends ApiObject> WatchHandle watch(Kind<T> kind, long afterRevision, LabelSelector selector,
      WatchHandler<T> handler) {
    return watch(kind, afterRevision, selector, WatchScope.CLUSTER, handler);
  }

  private <T extends ApiObject> WatchHandle watch(Kind<T> kind, long afterRevision, LabelSelector selector,
      WatchScope scope, WatchHandler<T> handler) {
    var query = new StringBuilder("?" + HttpWire.PARAM_WATCH + "=true&" + HttpWire.PARAM_REVISION + "=" + afterRevision);
    if (!selector.isEmpty()) {
      query.append('&').append(HttpWire.PARAM_LABEL_SELECTOR).append('=').append(HttpWire.encodeQueryValue(selector.toString()));
    }
    if (scope instanceof WatchScope.Node node) {
      query.append('&').append(HttpWire.PARAM_NODE).append('=').append(HttpWire.encodeQueryValue(node.name()));
    }
    var uri = uri(HttpWire.collectionPath(kind) + query);
    // No request timeout: a watch lasts until closed; the server's bookmarks keep the line busy.
    var request = HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
        .header("Accept", HttpWire.JSON).GET().build();
    var response = send(request, BodyHandlers.ofInputStream());
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
    var uri = uri(HttpWire.API_PREFIX + path);
    return success(call(method, uri, json), uri);
  }

  /** Ends every watch and releases the connections. */
  @Override
  public void close() {
    watches.forEach(HttpWatch::close);
    connections.forEach(KeptConnections::close);
    http.shutdownNow();
    executor.shutdownNow();
  }

  private <T extends ApiObject> T write(String method, URI uri, T object) {
    var kind = Kinds.of(object);
    return decodeObject(kind, success(call(method, uri, Optional.of(ObjectCodec.toJson(object))), uri), uri);
  }

  /**
   * One call on a kept connection to the server calls go to now; a body is sent as JSON. A server
   * that cannot be reached moves the next call to the next server.
   */
  private HttpAnswer call(String method, URI uri, Optional<byte[]> json) {
    int used = current.get();
    var headers = json.isPresent() ? withJsonBody : plainHeaders;
    var target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    try {
      // A POST or PUT says its length even when empty; a GET or DELETE has no body to speak of.
      var body = json.isPresent() || method.equals("GET") || method.equals("DELETE") ? json : Optional.of(new byte[0]);
      return connections.get(used).exchange(method, target, headers, body, System.nanoTime() + requestTimeout.toNanos());
    } catch (java.nio.channels.ClosedByInterruptException e) {
      throw ResponseErrors.interrupted(uri);
    } catch (IOException e) {
      // The next call tries the next server (unless another call already moved on).
      current.compareAndSet(used, (used + 1) % bases.size());
      throw ResponseErrors.fromTransport(e, bases.get(used), uri);
    }
  }

  private URI uri(String pathAndQuery) {
    return URI.create(bases.get(current.get()) + pathAndQuery);
  }

  /** The server calls go to now. */
  public URI server() {
    return bases.get(current.get());
  }

  private <B> HttpResponse<B> send(HttpRequest request, BodyHandler<B> handler) {
    int used = current.get();
    try {
      return http.send(request, handler);
    } catch (IOException e) {
      // The next call tries the next server (unless another call already moved on).
      current.compareAndSet(used, (used + 1) % bases.size());
      throw ResponseErrors.fromTransport(e, bases.get(used), request.uri());
    } catch (InterruptedException e) {
      throw ResponseErrors.interrupted(request.uri());
    }
  }

  private static byte[] success(HttpAnswer answer, URI uri) {
    if (answer.status() / 100 != 2) {
      throw ResponseErrors.fromResponse(answer.status(), answer.body(), uri);
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
      return response.headers().firstValue(HttpWire.COMPACTED_REVISION_HEADER).map(Long::parseLong).orElse(0L);
    } catch (NumberFormatException e) {
      return 0L;
    }
  }

  private static byte[] readErrorBody(InputStream body) {
    try (body) {
      return body.readNBytes(1 << 20); // an error is small; never let a broken server make us buffer more
    } catch (IOException e) {
      return new byte[0];
    }
  }
}
