package dev.quartermaster.server;

import com.sun.net.httpserver.HttpExchange;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.api.client.http.HttpWire;
import java.io.IOException;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves watch requests and keeps the open ones, so that stopping the server can end them. */
final class WatchStreams {
  private static final Logger log = LoggerFactory.getLogger(WatchStreams.class);

  private final ApiClient api;
  private final Env env;
  private final WatchSettings settings;
  private final Metrics metrics;
  private final Optional<LongSupplier> storeRevision;
  private final Set<WatchSession<?>> open = ConcurrentHashMap.newKeySet();
  private final EventLines lines = new EventLines();
  private volatile boolean stopping;

  WatchStreams(ApiClient api, Env env, WatchSettings settings, Metrics metrics, Optional<LongSupplier> storeRevision) {
    this.api = api;
    this.storeRevision = storeRevision;
    this.env = env;
    this.settings = settings;
    this.metrics = metrics;
  }

  /** Streams until the watch ends or the client goes away; returns the HTTP status sent. */
  <T extends ApiObject> int serve(HttpExchange exchange, Kind<T> kind, long afterRevision, LabelSelector selector,
      WatchScope scope) throws IOException {
    requireReached(kind, afterRevision);
    var session = new WatchSession<>(kind, afterRevision, selector, env, settings, lines, metrics);
    open.add(session);
    metrics.watchStarted();
    if (stopping) {
      session.abort(stoppingError());
    }
    WatchHandle handle = () -> {};
    try {
      handle = api.watch(kind, afterRevision, scope, session);
      log.debug("event=watch_start kind={} after={} selector='{}' scope={}", kind.plural(), afterRevision, selector, scope);
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
    var current = storeRevision.map(LongSupplier::getAsLong).orElseGet(() -> api.list(kind).revision());
    if (afterRevision > current) {
      throw ErrorResponses.badRequest(HttpWire.PARAM_REVISION,
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
    open.forEach(s -> s.abort(stoppingError()));
  }

  private static ApiError stoppingError() {
    return ApiError.of(ApiError.Reason.Unavailable, "the server is shutting down; watch again");
  }
}
