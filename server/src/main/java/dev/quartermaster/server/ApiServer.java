package dev.quartermaster.server;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.core.files.OwnerOnly;
import dev.quartermaster.server.auth.AdminToken;
import dev.quartermaster.server.auth.TokenAuthenticator;
import dev.quartermaster.server.dashboard.DashboardFiles;
import dev.quartermaster.server.http.HttpTransport;
import dev.quartermaster.server.http.RequestThreads;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API: a thin adapter over any {@link dev.quartermaster.api.client.ApiClient}, adding
 * auth, request validation, watch streaming and metrics. Each request runs on its own virtual
 * thread.
 *
 * <pre>{@code
 * try (var server = ApiServer.start(ApiServerConfig.of(registry, dataDir).withListen("0.0.0.0", 7080))) {
 *   ...
 * }
 * }</pre>
 */
@OutsideEnv("the HTTP server's request threads")
public final class ApiServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

  /** How long {@link #close} lets in-flight requests finish once watch streams were told to end. */
  private static final Duration STOP_GRACE = Duration.ofSeconds(5);

  private final HttpTransport http;
  private final Router router;
  private final ExecutorService executor;
  private final ExecutorService health;
  private final WatchStreams watches;
  private final InFlightRequests inFlight;
  private final Path adminTokenFile;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final boolean tls;

  private ApiServer(
      HttpTransport http,
      ExecutorService executor,
      ExecutorService health,
      WatchStreams watches,
      InFlightRequests inFlight,
      Path adminTokenFile,
      boolean tls,
      Router router) {
    this.http = http;
    this.router = router;
    this.tls = tls;
    this.inFlight = inFlight;
    this.executor = executor;
    this.health = health;
    this.watches = watches;
    this.adminTokenFile = adminTokenFile;
  }

  /** Creates the admin token if missing, binds and starts serving. */
  public static ApiServer start(ApiServerConfig config) throws IOException {
    // The data dir holds the store, the admin token and node state: no other local user may read
    // it.
    OwnerOnly.directory(config.dataDir())
        .ifPresent(t -> log.warn("data directory was open to other users; tightened {}", t));
    var adminToken = AdminToken.loadOrCreate(config.dataDir());
    var authenticator =
        config
            .authenticator()
            .orElseGet(
                () ->
                    config
                        .nodeTokens()
                        .map(t -> TokenAuthenticator.admin(adminToken).withNodeTokens(t))
                        .orElseGet(() -> TokenAuthenticator.admin(adminToken)));
    var registry =
        config
            .meterRegistry()
            .orElseGet(() -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    var metrics = new Metrics(registry, config.storeRevision());
    var watches =
        new WatchStreams(
            config.api(),
            config.env(),
            config.watch(),
            metrics,
            config.storeRevision(),
            authenticator);
    var objects = new ObjectRoutes(config.api(), config.accessRule(), config.env()::now);
    var inFlight = new InFlightRequests(config.env());
    var tokens = new TokenRoutes(config.nodeTokens(), config.env());
    var router =
        new Router(
            authenticator,
            objects,
            tokens,
            watches,
            metrics,
            config.env(),
            config.maxBodyBytes(),
            inFlight,
            DashboardFiles.load(),
            new TaskLogProxy(config.api(), config.nodeTokens(), adminToken));

    var executor =
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("qm-http-", 0).factory());
    // The health check on platform threads of its own: never queued behind other requests.
    var health =
        Executors.newFixedThreadPool(
            2, Thread.ofPlatform().daemon().name("qm-health-", 0).factory());
    var connections = config.connections();
    Optional<SslContext> tls = Optional.empty();
    if (config.tls().isPresent()) {
      var m = config.tls().get();
      tls = Optional.of(SslContextBuilder.forServer(m.key(), m.certificate(), m.ca()).build());
    }
    var http =
        HttpTransport.start(
            new InetSocketAddress(config.host(), config.port()),
            connections,
            config.maxBodyBytes(),
            router,
            new RequestThreads(executor, health, java.util.Set.of(Router.HEALTH_PATH, "/readyz")),
            metrics::rejected,
            tls);
    metrics.connections(http::openConnections);
    var server =
        new ApiServer(
            http,
            executor,
            health,
            watches,
            inFlight,
            AdminToken.file(config.dataDir()),
            tls.isPresent(),
            router);
    log.info(
        "event=api_listening host={} port={} data={} max_body_bytes={} max_connections={} "
            + "max_connections_per_address={} request_timeout={} idle_timeout={}",
        config.host(),
        server.port(),
        config.dataDir(),
        config.maxBodyBytes(),
        http.maxConnections(),
        connections.maxConnectionsPerAddress(),
        connections.requestTimeout(),
        connections.idleTimeout());
    return server;
  }

  /**
   * From now on {@code /readyz} answers what {@code source} says (the controllers, once they exist:
   * the API serves before them); {@code source} is asked on every request and must read no store.
   */
  public void reportReadiness(java.util.function.Supplier<Readiness> source) {
    router.readiness(source);
  }

  /** The port bound, which differs from the configured one when that was 0. */
  public int port() {
    return http.address().getPort();
  }

  /** {@code http://host:port} ({@code https} when serving TLS), for clients. */
  public URI baseUri() {
    var address = http.address();
    var host = address.getAddress().isAnyLocalAddress() ? "127.0.0.1" : address.getHostString();
    return URI.create(
        (tls ? "https://" : "http://")
            + (host.contains(":") ? "[" + host + "]" : host)
            + ":"
            + address.getPort());
  }

  /** Connections open now (tests and the connections gauge). */
  public int openConnections() {
    return http.openConnections();
  }

  public Path adminTokenFile() {
    return adminTokenFile;
  }

  /** The watch streams' shared event lines, for tests of fan-out cost. */
  EventLines eventLines() {
    return watches.lines();
  }

  /**
   * Ends watch streams (each gets a final 503 line), lets other requests finish briefly, then
   * stops.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    watches.stop();
    try {
      if (!inFlight.awaitIdle(STOP_GRACE)) {
        log.warn("event=api_stop_forced grace={}", STOP_GRACE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    http.close(); // nothing of ours is in flight any more; close what is left at once
    executor.shutdownNow();
    health.shutdownNow();
    log.info("event=api_stopped port={}", port());
  }
}
