package dev.quartermaster.server;

import com.sun.net.httpserver.HttpExchange;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.server.auth.Authenticator;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves watch requests and keeps the open ones, so that stopping the server can end them, and so
 * that a watch whose token was revoked ends: every {@link #CREDENTIALS_RECHECKED} each open watch's
 * token is authenticated again (once per distinct token), on every server alike, since the tokens
 * live in the shared store. A revoked token's watches end within that bound with a 401 line.
 */
final class WatchStreams {
  private static final Logger log = LoggerFactory.getLogger(WatchStreams.class);

  private final ApiClient api;
  private final Env env;
  private final WatchSettings settings;
  private final Metrics metrics;
  private final Optional<LongSupplier> storeRevision;
  static final Duration CREDENTIALS_RECHECKED = Duration.ofSeconds(2);

  /** Each open stream, with the bearer token it was opened with. */
  private final Map<WatchSession<?>, String> open = new ConcurrentHashMap<>();

  private final Authenticator authenticator;
  private final EventLines lines = new EventLines();
  private volatile boolean stopping;

  WatchStreams(
      ApiClient api,
      Env env,
      WatchSettings settings,
      Metrics metrics,
      Optional<LongSupplier> storeRevision,
      Authenticator authenticator) {
    this.api = api;
    this.authenticator = authenticator;
    this.storeRevision = storeRevision;
    this.env = env;
    this.settings = settings;
    this.metrics = metrics;
    scheduleRecheck();
  }

  /** Streams until the watch ends or the client goes away; returns the HTTP status sent. */
  <T extends ApiObject> int serve(
      HttpExchange exchange,
      Kind<T> kind,
      long afterRevision,
      LabelSelector selector,
      WatchScope scope,
      String bearerToken)
      throws IOException {
    requireReached(kind, afterRevision);
    var session = new WatchSession<>(kind, afterRevision, selector, env, settings, lines, metrics);
    open.put(session, bearerToken);
    metrics.watchStarted();
    if (stopping) {
      session.abort(stoppingError());
    }
    WatchHandle handle = () -> {};
    try {
      handle = api.watch(kind, afterRevision, scope, session);
      log.debug(
          "event=watch_start kind={} after={} selector='{}' scope={}",
          kind.plural(),
          afterRevision,
          selector,
          scope);
      return session.run(exchange);
    } catch (IOException e) {
      // The client went away mid-stream; that is how watches normally end.
      log.debug("event=watch_end kind={} cause='{}'", kind.plural(), e.getMessage());
      return 200;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 200;
    } finally {
      open.remove(session);
      metrics.watchEnded();
      handle.close(); // from this thread, never from inside a callback
    }
  }

  /**
   * A watch from a revision the store has not reached is refused: it would wait for a future the
   * client invented, and bookmarks would claim revisions that never existed.
   */
  private <T extends ApiObject> void requireReached(Kind<T> kind, long afterRevision) {
    if (afterRevision == 0) {
      return;
    }
    // The store's own counter when the server was given one; else a list, which carries it too.
    var current =
        storeRevision.map(LongSupplier::getAsLong).orElseGet(() -> api.list(kind).revision());
    if (afterRevision > current) {
      throw ErrorResponses.badRequest(
          HttpWire.PARAM_REVISION,
          "must be at most the store's current revision " + current + ", got " + afterRevision);
    }
  }

  /** The shared event lines, for tests of fan-out cost. */
  EventLines lines() {
    return lines;
  }

  /** Ends every open stream with a 503 line; new ones end at once. */
  void stop() {
    stopping = true;
    open.keySet().forEach(s -> s.abort(stoppingError()));
  }

  private void scheduleRecheck() {
    env.schedule(
        CREDENTIALS_RECHECKED,
        () -> {
          if (!stopping) {
            recheckCredentials();
            scheduleRecheck();
          }
        });
  }

  /** Ends, with a 401 line, every open watch whose token no longer authenticates. */
  void recheckCredentials() {
    var valid = new HashMap<String, Boolean>();
    open.forEach(
        (session, token) -> {
          boolean still;
          try {
            still = valid.computeIfAbsent(token, t -> authenticator.authenticate(t).isPresent());
          } catch (RuntimeException e) {
            return; // the store could not say (e.g. etcd between leaders): judge it at the next
            // round
          }
          if (!still) {
            session.abort(
                ApiError.of(
                    ApiError.Reason.Unauthorized,
                    "the token this watch was opened with "
                        + "no longer authenticates (revoked); watch again with a valid token"));
          }
        });
  }

  private static ApiError stoppingError() {
    return ApiError.of(ApiError.Reason.Unavailable, "the server is shutting down; watch again");
  }
}
