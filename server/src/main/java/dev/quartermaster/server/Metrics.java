package dev.quartermaster.server;

import dev.quartermaster.server.http.Rejection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The server's own metrics, in Prometheus text at {@code /metrics}:
 *
 * <ul>
 *   <li>{@code qm_http_requests_seconds{method,route,kind,code}}: count and latency per route;
 *       route and kind are templates and plurals, never object names, so the series stay few;
 *   <li>{@code qm_watches_active}: open watch streams;
 *   <li>{@code qm_watch_fanout_seconds}: how long a change waited in a watch stream's queue until
 *       it was written to the client (the fan-out's lag; the store's own notify delay not
 *       included);
 *   <li>{@code qm_http_connections_open}: connections open now;
 *   <li>{@code qm_http_rejected_total{reason}}: connections and requests the transport refused
 *       before a handler ran: {@code connections} and {@code connections_per_address} (caps at
 *       accept), {@code request_timeout} (a request not in whole in time), {@code malformed} (not
 *       readable HTTP);
 *   <li>{@code qm_watches_closed_total{reason}}: watch streams the server ended because the client
 *       fell behind ({@code too_slow}: its queue passed the byte bound) or stopped reading ({@code
 *       write_timeout});
 *   <li>{@code qm_store_revision}: the store's current revision, when the server was given a way to
 *       read it.
 *   <li>{@code qm_store_history_bytes}: registered by {@code qm server}/{@code qm up} (cli's
 *       LocalServer) on the registry it hands the server: bytes of superseded and deleted values
 *       the store keeps for watches, as of the history compactor's last check (NaN before the
 *       first).
 *   <li>{@code qm_store_commits_total}: registered there too, on SQLite: transactions committed for
 *       writes, a group commit (heartbeats waiting for company) counted once.
 * </ul>
 */
final class Metrics {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /**
   * A watcher keeping up sees a change in well under a millisecond; one falling behind, in seconds.
   */
  private static final Duration[] FANOUT_BUCKETS = {
    Duration.ofNanos(100_000),
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(25),
    Duration.ofMillis(100),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(5),
    Duration.ofSeconds(30)
  };

  private record RequestSeries(String method, String route, String kind, int code) {}

  private final PrometheusMeterRegistry registry;
  private final ConcurrentHashMap<RequestSeries, Timer> requestTimers = new ConcurrentHashMap<>();
  private final AtomicInteger activeWatches = new AtomicInteger();
  private final Timer watchFanout;

  Metrics(PrometheusMeterRegistry registry, Optional<LongSupplier> storeRevision) {
    this.registry = registry;
    Gauge.builder("qm.watches.active", activeWatches, AtomicInteger::get)
        .description("open watch streams")
        .register(registry);
    // Registered up front, so a scrape shows 0 rather than nothing before the first rejection.
    for (var reason : Rejection.values()) {
      Counter.builder("qm.http.rejected")
          .description("connections and requests refused before a handler ran")
          .tag("reason", reason.label())
          .register(registry);
    }
    for (var reason : new String[] {"too_slow", "write_timeout"}) {
      Counter.builder("qm.watches.closed")
          .description("watch streams ended by the server for a slow client")
          .tag("reason", reason)
          .register(registry);
    }
    watchFanout =
        Timer.builder("qm.watch.fanout")
            .description(
                "time a change waited in a watch stream's queue until written to its client")
            .serviceLevelObjectives(FANOUT_BUCKETS)
            .register(registry);
    storeRevision.ifPresent(
        supplier ->
            Gauge.builder("qm.store.revision", supplier, Metrics::readSafely)
                // Held strongly: a gauge keeps its state object weakly, and nothing else holds this
                // lambda,
                // so after the first GC it read NaN.
                .description("the store's current revision")
                .strongReference(true)
                .register(registry));
  }

  void request(String method, String route, String kind, int code, Duration took) {
    // Each series' timer found once: building its tags and id on every request cost more than the
    // timer itself. The series are few (templates, plurals and codes).
    requestTimers
        .computeIfAbsent(
            new RequestSeries(method, route, kind, code),
            s ->
                Timer.builder("qm.http.requests")
                    .description("HTTP requests by route and status")
                    .tags(
                        "method",
                        s.method(),
                        "route",
                        s.route(),
                        "kind",
                        s.kind(),
                        "code",
                        Integer.toString(s.code()))
                    .register(registry))
        .record(took);
  }

  void rejected(Rejection reason) {
    Counter.builder("qm.http.rejected")
        .description("connections and requests refused before a handler ran")
        .tag("reason", reason.label())
        .register(registry)
        .increment();
  }

  void watchClosed(String reason) {
    Counter.builder("qm.watches.closed")
        .description("watch streams ended by the server for a slow client")
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  /** Exports the transport's open connections. */
  void connections(IntSupplier open) {
    Gauge.builder("qm.http.connections.open", open, IntSupplier::getAsInt)
        .description("open HTTP connections")
        .strongReference(true)
        .register(registry);
  }

  /** A change reached a watcher, {@code lag} after the server queued it for that stream. */
  void watchDelivered(Duration lag) {
    watchFanout.record(lag);
  }

  void watchStarted() {
    activeWatches.incrementAndGet();
  }

  void watchEnded() {
    activeWatches.decrementAndGet();
  }

  String scrape() {
    return registry.scrape();
  }

  /** A scrape must not fail because the store is briefly unreadable: report NaN instead. */
  private static double readSafely(LongSupplier supplier) {
    try {
      return supplier.getAsLong();
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }
}
