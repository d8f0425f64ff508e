package dev.quartermaster.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.quartermaster.api.client.ContinueToken;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ListPage;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.logs.LogOptions;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.server.auth.Access;
import dev.quartermaster.server.auth.Authenticator;
import dev.quartermaster.server.auth.Principal;
import dev.quartermaster.server.dashboard.DashboardFile;
import dev.quartermaster.server.dashboard.DashboardFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one HTTP handler: health, metrics and the dashboard's fixed files without auth; everything
 * under {@code /api/v1/} authenticated, routed by path and method to {@link ObjectRoutes} or {@link
 * WatchStreams}. Every request is counted and timed, and every failure answered as an {@link
 * dev.quartermaster.api.error.ApiError}.
 */
final class Router implements HttpHandler {
  private static final Logger log = LoggerFactory.getLogger(Router.class);
  private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "DELETE");

  /** The health check: answered by the server itself, without the store or the controllers. */
  static final String HEALTH_PATH = "/healthz";

  /**
   * The longest request target (path and query) answered; longer is a 414. Real targets are a kind,
   * a name and a selector: far below this. (The JDK server itself closes the connection on a
   * request line or headers over sun.net.httpserver.maxReqHeaderSize, 384 KiB by default.)
   */
  static final int MAX_URI_CHARS = 8 * 1024;

  private static final Set<String> LIST_PARAMS =
      Set.of(
          HttpWire.PARAM_LABEL_SELECTOR,
          HttpWire.PARAM_WATCH,
          HttpWire.PARAM_AS,
          HttpWire.PARAM_LIMIT,
          HttpWire.PARAM_CONTINUE);
  private static final Set<String> ITEM_PARAMS = Set.of(HttpWire.PARAM_AS);
  private static final Set<String> WATCH_PARAMS =
      Set.of(
          HttpWire.PARAM_LABEL_SELECTOR,
          HttpWire.PARAM_WATCH,
          HttpWire.PARAM_REVISION,
          HttpWire.PARAM_NODE);

  private final Authenticator authenticator;
  private final TokenRoutes tokens;
  private final ObjectRoutes objects;
  private final WatchStreams watches;
  private final Metrics metrics;
  private final Env env;
  private final long maxBodyBytes;
  private final AtomicLong requestIds = new AtomicLong();
  private final InFlightRequests inFlight;
  private final DashboardFiles dashboard;
  private final TaskLogProxy logs;

  private volatile Supplier<Readiness> readiness = () -> Readiness.SERVING;

  Router(
      Authenticator authenticator,
      ObjectRoutes objects,
      TokenRoutes tokens,
      WatchStreams watches,
      Metrics metrics,
      Env env,
      long maxBodyBytes,
      InFlightRequests inFlight,
      DashboardFiles dashboard,
      TaskLogProxy logs) {
    this.dashboard = dashboard;
    this.logs = logs;
    this.inFlight = inFlight;
    this.authenticator = authenticator;
    this.objects = objects;
    this.tokens = tokens;
    this.watches = watches;
    this.metrics = metrics;
    this.env = env;
    this.maxBodyBytes = maxBodyBytes;
  }

  /** What {@code /readyz} reports; read on each request, so it must read no store. */
  void readiness(Supplier<Readiness> source) {
    this.readiness = Objects.requireNonNull(source, "source");
  }

  /** Route and kind labels for metrics, filled in as the request is understood. */
  private static final class Labels {
    String route = "other";
    String kind = "";
  }

  @Override
  public void handle(HttpExchange exchange) {
    inFlight.enter();
    try {
      handleCounted(exchange);
    } finally {
      inFlight.exit();
    }
  }

  private void handleCounted(HttpExchange exchange) {
    var id = requestIds.incrementAndGet();
    var started = env.nanoTime();
    var method = exchange.getRequestMethod().toUpperCase(Locale.ROOT);
    var rawPath = exchange.getRequestURI().getRawPath();
    // The log line names the path, cut short: an 8 MiB path must not become an 8 MiB log line.
    var path = rawPath.length() <= 256 ? rawPath : rawPath.substring(0, 256) + "...";
    var labels = new Labels();
    int status;
    try {
      status = dispatch(exchange, method, rawPath, labels);
    } catch (Throwable failure) {
      status = fail(exchange, failure, id, method, path);
    } finally {
      exchange.close();
    }
    var took = Duration.ofNanos(env.nanoTime() - started);
    metrics.request(
        METHODS.contains(method) ? method : "other", labels.route, labels.kind, status, took);
    if (status >= 500) {
      log.warn(
          "event=request id={} method={} path={} status={} micros={}",
          id,
          method,
          path,
          status,
          took.toNanos() / 1000);
    } else {
      log.debug(
          "event=request id={} method={} path={} status={} micros={}",
          id,
          method,
          path,
          status,
          took.toNanos() / 1000);
    }
  }

  private int dispatch(HttpExchange exchange, String method, String path, Labels labels)
      throws IOException {
    var targetLength =
        path.length()
            + Optional.ofNullable(exchange.getRequestURI().getRawQuery())
                .map(String::length)
                .orElse(0);
    if (targetLength > MAX_URI_CHARS) {
      throw new ApiException(
          new ApiError(
              414,
              Reason.UriTooLong,
              "the request target is "
                  + targetLength
                  + " characters; the limit is "
                  + MAX_URI_CHARS,
              List.of()));
    }
    if (path.equals(HEALTH_PATH)) {
      labels.route = path;
      // HEAD is what load balancers and uptime checks send: headers of the GET answer, no body.
      return !isGetOrHead(method)
          ? notAllowed(exchange, method, path, "GET, HEAD")
          : send(exchange, Reply.text(200, "text/plain; charset=utf-8", "ok\n"));
    }
    if (path.equals("/readyz")) {
      labels.route = path;
      if (!isGetOrHead(method)) {
        return notAllowed(exchange, method, path, "GET, HEAD");
      }
      var now = readiness.get();
      return send(
          exchange,
          Reply.text(
              now.ready() ? 200 : 503,
              "text/plain; charset=utf-8",
              (now.ready() ? "ok: " : "not ready: ") + now.message() + "\n"));
    }
    if (path.equals("/metrics")) {
      labels.route = path;
      return !isGetOrHead(method)
          ? notAllowed(exchange, method, path, "GET, HEAD")
          : send(exchange, Reply.text(200, Metrics.CONTENT_TYPE, metrics.scrape()));
    }
    if (!path.startsWith(HttpWire.API_PREFIX)) {
      var file =
          dashboard
              .find(path)
              .orElseThrow(
                  () ->
                      ErrorResponses.notFound(
                          "no such path " + path + "; the API is under " + HttpWire.API_PREFIX));
      labels.route = "/dashboard";
      return !isGetOrHead(method)
          ? notAllowed(exchange, method, path, "GET, HEAD")
          : sendFile(exchange, file);
    }
    var who = authenticate(exchange);
    var tokensPath = HttpWire.API_PREFIX + TokenRoutes.PATH;
    if (path.equals(tokensPath) || path.startsWith(tokensPath + "/")) {
      labels.route = tokensPath;
      var id =
          path.equals(tokensPath)
              ? Optional.<String>empty()
              : Optional.of(path.substring(tokensPath.length() + 1));
      return send(
          exchange,
          tokens.serve(who, method, id, method.equals("POST") ? body(exchange) : new byte[0]));
    }
    var target = ApiPath.parse(path);
    labels.route = target.route();
    labels.kind = target.kind().plural();
    return switch (target) {
      case ApiPath.Collection c -> collection(exchange, method, path, who, c, labels);
      case ApiPath.Item i ->
          switch (method) {
            case "GET" -> {
              var query = QueryParams.parse(exchange.getRequestURI().getRawQuery());
              query.allowOnly(ITEM_PARAMS);
              if (i.kind().equals(Kinds.NODE)
                  && query.get(HttpWire.PARAM_AS).filter(HttpWire.AS_MIG::equals).isPresent()) {
                yield send(exchange, objects.mig(who, i.name()));
              }
              yield send(
                  exchange,
                  asTable(query)
                      ? objects.table(who, i.kind(), Optional.of(i.name()), LabelSelector.parse(""))
                      : objects.get(who, i.kind(), i.name()));
            }
            case "PUT" -> {
              var query = QueryParams.parse(exchange.getRequestURI().getRawQuery());
              query.allowOnly(Set.of(HttpWire.PARAM_DRY_RUN));
              yield send(
                  exchange, objects.update(who, i.kind(), i.name(), body(exchange), dryRun(query)));
            }
            case "DELETE" -> send(exchange, objects.delete(who, i.kind(), i.name()));
            default -> notAllowed(exchange, method, path, "GET, PUT, DELETE");
          };
      case ApiPath.Log l -> {
        if (!method.equals("GET")) {
          yield notAllowed(exchange, method, path, "GET");
        }
        var query = QueryParams.parse(exchange.getRequestURI().getRawQuery());
        query.allowOnly(LogOptions.PARAMS);
        var options = LogOptions.parse(query::get);
        objects.authorize(who, Access.read(Access.Verb.GET, Kinds.TASK, Optional.of(l.name())));
        if (who.role() instanceof Principal.NodeAgent node) {
          // An agent reads objects to do its work; a task's output is no part of that, and another
          // node's may hold what its owner never meant to share across nodes.
          throw new ApiException(
              Reason.Forbidden,
              who.name()
                  + " may not read task output: a node token is an agent's credential; use the"
                  + " admin token");
        }
        yield logs.serve(exchange, l.name(), options);
      }
      case ApiPath.Status s ->
          !method.equals("PUT")
              ? notAllowed(exchange, method, path, "PUT")
              : send(exchange, objects.updateStatus(who, s.kind(), s.name(), body(exchange)));
    };
  }

  private int collection(
      HttpExchange exchange,
      String method,
      String path,
      Principal who,
      ApiPath.Collection c,
      Labels labels)
      throws IOException {
    var query = QueryParams.parse(exchange.getRequestURI().getRawQuery());
    switch (method) {
      case "POST" -> {
        query.allowOnly(Set.of(HttpWire.PARAM_DRY_RUN));
        return send(exchange, objects.create(who, c.kind(), body(exchange), dryRun(query)));
      }
      case "GET" -> {
        var selector = LabelSelector.parse(query.get(HttpWire.PARAM_LABEL_SELECTOR).orElse(""));
        if (!query.flag(HttpWire.PARAM_WATCH)) {
          query.allowOnly(LIST_PARAMS);
          var page = page(query);
          return send(
              exchange,
              asTable(query)
                  ? objects.table(who, c.kind(), selector, page)
                  : objects.list(who, c.kind(), selector, page));
        }
        query.allowOnly(WATCH_PARAMS);
        var after = query.nonNegativeLong(HttpWire.PARAM_REVISION, 0);
        var scope =
            query
                .get(HttpWire.PARAM_NODE)
                .<WatchScope>map(
                    node -> {
                      if (!Names.isDnsLabel(node)) {
                        throw ErrorResponses.badRequest(
                            HttpWire.PARAM_NODE, "a node name " + Names.DNS_LABEL_RULE);
                      }
                      return WatchScope.node(node);
                    })
                .orElse(WatchScope.CLUSTER);
        objects.authorize(who, Access.read(Access.Verb.WATCH, c.kind(), Optional.empty()));
        labels.route = HttpWire.API_PREFIX + "{plural}?watch";
        return watches.serve(exchange, c.kind(), after, selector, scope, bearer(exchange));
      }
      default -> {
        return notAllowed(exchange, method, path, "GET, POST");
      }
    }
  }

  /**
   * A dashboard file, or a bodiless 304 when the browser's copy is current (see DashboardHeaders).
   */
  private int sendFile(HttpExchange exchange, DashboardFile file) throws IOException {
    var current = file.etag().equals(exchange.getRequestHeaders().getFirst("If-None-Match"));
    var reply =
        new Reply(
            current ? 304 : 200,
            dashboard.headers(file),
            file.contentType(),
            current ? new byte[0] : file.body());
    return send(exchange, reply);
  }

  /**
   * {@code limit=N} (a whole number from 1) and {@code continue=TOKEN} (as a page gave it, and only
   * with a limit): one page of the list; neither, the whole list.
   */
  private static Optional<ListPage> page(QueryParams query) {
    var token =
        query
            .get(HttpWire.PARAM_CONTINUE)
            .map(
                t -> {
                  try {
                    ContinueToken.decode(t);
                    return t;
                  } catch (IllegalArgumentException e) {
                    throw ErrorResponses.badRequest(HttpWire.PARAM_CONTINUE, e.getMessage());
                  }
                });
    if (query.get(HttpWire.PARAM_LIMIT).isEmpty()) {
      if (token.isPresent()) {
        throw ErrorResponses.badRequest(
            HttpWire.PARAM_CONTINUE, "comes with the limit its first page was asked with");
      }
      return Optional.empty();
    }
    long limit = query.nonNegativeLong(HttpWire.PARAM_LIMIT, 0);
    if (limit < 1 || limit > Integer.MAX_VALUE - 1) {
      throw ErrorResponses.badRequest(HttpWire.PARAM_LIMIT, "must be a whole number from 1");
    }
    return Optional.of(new ListPage((int) limit, token));
  }

  /** {@code dryRun=All}, as Kubernetes spells it; any other value is a 400 naming it. */
  private static boolean dryRun(QueryParams query) {
    var value = query.get(HttpWire.PARAM_DRY_RUN);
    if (value.isPresent() && !value.get().equals(HttpWire.DRY_RUN_ALL)) {
      throw ErrorResponses.badRequest(
          HttpWire.PARAM_DRY_RUN,
          "must be '" + HttpWire.DRY_RUN_ALL + "' (judge the write, store nothing) or absent");
    }
    return value.isPresent();
  }

  /** {@code as=table}; any other {@code as} is a 400 naming it. */
  private static boolean asTable(QueryParams query) {
    var as = query.get(HttpWire.PARAM_AS);
    if (as.isPresent() && !as.get().equals(HttpWire.AS_TABLE)) {
      throw ErrorResponses.badRequest(
          HttpWire.PARAM_AS,
          "must be '"
              + HttpWire.AS_TABLE
              + "' (or '"
              + HttpWire.AS_MIG
              + "' on one node, or absent, for the objects)");
    }
    return as.isPresent();
  }

  private static boolean isGetOrHead(String method) {
    return method.equals("GET") || method.equals("HEAD");
  }

  private Principal authenticate(HttpExchange exchange) {
    return authenticator
        .authenticate(bearer(exchange))
        .orElseThrow(() -> ErrorResponses.unauthorized("invalid bearer token"));
  }

  /** The token of the request's {@code Authorization: Bearer <token>}; 401 when there is none. */
  private static String bearer(HttpExchange exchange) {
    var header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || header.isBlank()) {
      throw ErrorResponses.unauthorized(
          "missing bearer token: send 'Authorization: Bearer <token>' "
              + "(the admin token is in admin.token in the server's data directory)");
    }
    // "Bearer", white space, the token: read without a regular expression (one per request).
    var text = header.strip();
    int space = 0;
    while (space < text.length() && !Character.isWhitespace(text.charAt(space))) {
      space++;
    }
    if (space == text.length() || !text.substring(0, space).equalsIgnoreCase("Bearer")) {
      throw ErrorResponses.unauthorized("the Authorization header must be 'Bearer <token>'");
    }
    return text.substring(space).strip();
  }

  private byte[] body(HttpExchange exchange) throws IOException {
    requireJson(exchange.getRequestHeaders().getFirst("Content-Type"));
    return RequestBody.read(exchange, maxBodyBytes);
  }

  /**
   * A body declared as something else than JSON is refused by name, rather than parsed as JSON and
   * failing on its first token: YAML is read by {@code qm apply}, and {@code curl -d} declares a
   * form.
   */
  private static void requireJson(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return;
    }
    var media = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    if (!media.equals("application/json") && !media.endsWith("+json")) {
      throw new ApiException(
          new ApiError(
              415,
              Reason.UnsupportedMediaType,
              "Content-Type: the API takes JSON bodies"
                  + " (application/json), got '"
                  + RequestBody.printable(media)
                  + "'; qm apply -f reads YAML and sends JSON,"
                  + " and curl needs -H 'Content-Type: application/json' with -d",
              List.of()));
    }
  }

  private static int send(HttpExchange exchange, Reply reply) throws IOException {
    return Exchanges.send(exchange, reply);
  }

  private static int notAllowed(HttpExchange exchange, String method, String path, String allowed)
      throws IOException {
    var error = ErrorResponses.methodNotAllowed(method, path, allowed).error();
    return send(exchange, ErrorResponses.reply(error).withHeader("Allow", allowed));
  }

  private static int fail(
      HttpExchange exchange, Throwable failure, long id, String method, String path) {
    var error = ErrorResponses.toError(failure, id, method, path);
    if (exchange.getResponseCode() != -1) {
      // Headers are out (a stream broke mid-way): nothing more can be said to the client.
      log.debug("event=late_failure id={} path={} cause='{}'", id, path, failure.toString());
      return exchange.getResponseCode();
    }
    try {
      return Exchanges.send(exchange, ErrorResponses.reply(error));
    } catch (IOException e) {
      log.debug("event=error_not_sent id={} cause='{}'", id, e.toString());
      return error.code();
    }
  }
}
