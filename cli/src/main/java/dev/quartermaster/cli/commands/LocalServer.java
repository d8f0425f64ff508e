package dev.quartermaster.cli.commands;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.metrics.AdmissionWaitTime;
import dev.quartermaster.cli.metrics.AllocationLatency;
import dev.quartermaster.cli.metrics.ClusterCollector;
import dev.quartermaster.cli.metrics.ControllerMeters;
import dev.quartermaster.cli.metrics.EvictionCount;
import dev.quartermaster.cli.metrics.GangWaitTime;
import dev.quartermaster.cli.metrics.QueueCollector;
import dev.quartermaster.control.ControlPlane;
import dev.quartermaster.control.ControlPlaneOptions;
import dev.quartermaster.control.leader.LeaderConfig;
import dev.quartermaster.control.volume.SocketPluginConnector;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.files.OwnerOnly;
import dev.quartermaster.server.ApiServer;
import dev.quartermaster.server.ApiServerConfig;
import dev.quartermaster.server.Readiness;
import dev.quartermaster.server.auth.AdminToken;
import dev.quartermaster.server.auth.NodeTokens;
import dev.quartermaster.server.replica.ClusterSecrets;
import dev.quartermaster.server.tls.ServerCertificates;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.StoreLeases;
import dev.quartermaster.store.compaction.HistoryCompactor;
import dev.quartermaster.store.compaction.HistoryPlan;
import dev.quartermaster.store.compaction.HistorySizes;
import dev.quartermaster.store.etcd.EtcdStore;
import dev.quartermaster.store.etcd.EtcdVersion;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import dev.quartermaster.store.sqlite.StoreInUseException;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * The pieces {@code qm server} runs: the store (SQLite in the data directory, or a shared etcd),
 * the object registry over it, the HTTP API server, the controllers (leader-elected through the
 * store, so that of several servers on one etcd only one runs them) and the history compactor.
 * Closing stops them in reverse order: no request reaches the store after it is closed.
 */
public final class LocalServer implements AutoCloseable {
  public static final String STORE_FILE = "store.db";

  /** Where {@code qm up} keeps each node's agent state. */
  public static final String NODES_DIR = "nodes";

  private final Store store;
  private final ObjectRegistry registry;
  private final ApiServer server;
  private final ControlPlane controllers;
  private final HistoryCompactor compactor;
  private final Path dataDir;
  private final Path tokenFile;
  private final URI uri;
  private final Optional<X509Certificate> ca;
  private final MeterRegistry meters;
  private final Optional<ClusterSecrets.Joined> joined;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);

  private LocalServer(
      Store store,
      ObjectRegistry registry,
      ApiServer server,
      ControlPlane controllers,
      HistoryCompactor compactor,
      Path dataDir,
      Path tokenFile,
      URI uri,
      Optional<X509Certificate> ca,
      MeterRegistry meters,
      Optional<ClusterSecrets.Joined> joined) {
    this.joined = joined;
    this.store = store;
    this.registry = registry;
    this.server = server;
    this.controllers = controllers;
    this.compactor = compactor;
    this.dataDir = dataDir;
    this.tokenFile = tokenFile;
    this.uri = uri;
    this.ca = ca;
    this.meters = meters;
  }

  /**
   * What to run besides the API.
   *
   * @param history how much store history (revisions, and bytes of superseded values) watchers can
   *     resume from; older history is compacted
   * @param plane what the control plane is started with, from this server's own options: the
   *     identity, but for a harness that runs a naive control plane in a real process (issue 49)
   * @param controlView what the controllers reach the store through: the registry itself, which
   *     fences each term's writes; a harness's naive control plane hides that it can
   */
  public record Options(
      HistoryPlan.Limits history,
      Duration compactEvery,
      String identity,
      boolean tls,
      StoreLocation store,
      LeaderConfig leader,
      UnaryOperator<ControlPlaneOptions> plane,
      UnaryOperator<ApiClient> controlView) {
    public static Options defaults() {
      return new Options(
          HistoryPlan.Limits.defaults(),
          Duration.ofMinutes(1),
          "qm-" + ProcessHandle.current().pid(),
          false,
          new StoreLocation.Sqlite(),
          LeaderConfig.DEFAULTS,
          UnaryOperator.identity(),
          UnaryOperator.identity());
    }

    public Options withControlView(UnaryOperator<ApiClient> view) {
      return new Options(history, compactEvery, identity, tls, store, leader, plane, view);
    }

    public Options withPlane(UnaryOperator<ControlPlaneOptions> change) {
      return new Options(history, compactEvery, identity, tls, store, leader, change, controlView);
    }

    public Options withHistory(HistoryPlan.Limits limits) {
      return new Options(limits, compactEvery, identity, tls, store, leader, plane, controlView);
    }

    /**
     * Serve HTTPS with the data directory's own CA and certificate ({@link ServerCertificates}),
     * made at first start.
     */
    public Options withTls(boolean on) {
      return new Options(history, compactEvery, identity, on, store, leader, plane, controlView);
    }

    public Options withStore(StoreLocation where) {
      return new Options(history, compactEvery, identity, tls, where, leader, plane, controlView);
    }

    /** This server's name in the controllers' lease: which server leads, in logs. */
    public Options withIdentity(String name) {
      return new Options(history, compactEvery, name, tls, store, leader, plane, controlView);
    }

    public Options withLeader(LeaderConfig config) {
      return new Options(history, compactEvery, identity, tls, store, config, plane, controlView);
    }
  }

  /** A store opened, with how much history it can measure (SQLite can; etcd cannot say). */
  private record Opened(Store store, HistorySizes sizes) {}

  /** Opens the store and starts serving; a taken port is reported naming the address. */
  public static LocalServer start(Path dataDir, ListenAddress listen, Env env) {
    return start(dataDir, listen, env, Options.defaults());
  }

  /** Opens the store and starts serving; a taken port is reported naming the address. */
  public static LocalServer start(Path dataDir, ListenAddress listen, Env env, Options options) {
    refuseTaken(listen, dataDir);
    try {
      // Before the store opens: store.db and its WAL must never sit in a directory others can read.
      OwnerOnly.directory(dataDir)
          .ifPresent(
              t ->
                  System.err.println("qm: data directory was open to other users; tightened " + t));
    } catch (IOException e) {
      throw new CliException("cannot prepare data directory " + dataDir + ": " + e.getMessage());
    }
    var opened = open(dataDir, options.store());
    var store = opened.store();
    try {
      var registry = new ObjectRegistry(store, env);
      var meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      Optional<ClusterSecrets.Joined> joined = Optional.empty();
      if (options.store() instanceof StoreLocation.Etcd etcd) {
        joined =
            Optional.of(
                ClusterSecrets.join(
                    store,
                    etcd.describe(),
                    dataDir,
                    options.tls(),
                    List.of(listen.host()),
                    env.now()));
      }
      var config =
          ApiServerConfig.of(registry, dataDir)
              .withListen(listen.host(), listen.port())
              .withEnv(env)
              .withStoreRevision(store::currentRevision)
              .withMeterRegistry(meters)
              .withNodeTokens(new NodeTokens(store));
      Optional<X509Certificate> ca = Optional.empty();
      if (options.tls()) {
        var material = ServerCertificates.loadOrCreate(dataDir, List.of(listen.host()), env.now());
        config = config.withTls(material);
        ca = Optional.of(material.ca());
      }
      var server = ApiServer.start(config);
      var controllerMeters = new ControllerMeters(meters);
      var controllers =
          ControlPlane.start(
              options.controlView().apply(registry),
              // On SQLite the file lock proves that no other server has the store: a lease left
              // by a killed process is taken over at once instead of after it expires.
              options.store() instanceof StoreLocation.Sqlite
                  ? StoreLeases.ofExclusiveStore(store)
                  : new StoreLeases(store),
              env,
              options
                  .plane()
                  .apply(
                      ControlPlaneOptions.defaults(options.identity())
                          .withLeader(options.leader())
                          .withMetrics(controllerMeters)),
              new SocketPluginConnector());
      controllerMeters.register(controllers.loops());
      meters.getPrometheusRegistry().register(new ClusterCollector(controllers.informers()));
      controllers.informers().claims().addHandler(new AllocationLatency(env, meters));
      controllers.informers().workloads().addHandler(new GangWaitTime(env, meters));
      var informers = controllers.informers();
      meters
          .getPrometheusRegistry()
          .register(new QueueCollector(() -> informers.queues().cache().list()));
      informers
          .quotaLedgers()
          .addHandler(
              new AdmissionWaitTime(env, meters, name -> informers.workloads().cache().get(name)));
      informers.quotaLedgers().addHandler(new EvictionCount(env, meters));
      Gauge.builder("qm.controllers.leader", controllers, c -> c.isLeader() ? 1 : 0)
          .description(
              "1 while this server's controllers lead (one server of those sharing a store), else 0")
          .strongReference(true)
          .register(meters);
      Gauge.builder("qm.controllers.writable", controllers, c -> c.readiness().ready() ? 1 : 0)
          .description(
              "0 while this server leads but its controllers cannot write (no lease renewal, or"
                  + " writes fenced by an ended term; /readyz says which), else 1")
          .strongReference(true)
          .register(meters);
      server.reportReadiness(
          () -> {
            var r = controllers.readiness();
            return new Readiness(r.ready(), r.message());
          });
      var compactor =
          HistoryCompactor.start(
              store, opened.sizes(), env, options.history(), options.compactEvery());
      // Measured (and compacted) once now, so the gauge has a size from the first scrape: never
      // NaN.
      compactor.compactNow();
      if (store instanceof SqliteStore sqlite) {
        FunctionCounter.builder("qm.store.commits", sqlite, SqliteStore::commits)
            .description(
                "SQLite transactions committed for writes; writes that shared one (heartbeats wait"
                    + " up to 100 ms for company) count once")
            .register(meters);
      }
      if (opened.sizes() != HistorySizes.UNKNOWN) {
        Gauge.builder("qm.store.history.bytes", compactor, c -> Math.max(0, c.keptBytes()))
            .description(
                "bytes of superseded and deleted values kept for watches, as of the last compaction check")
            .strongReference(true)
            .register(meters);
      }
      // The server has created the admin token by now, so the config file written next points at a
      // real file.
      return new LocalServer(
          store,
          registry,
          server,
          controllers,
          compactor,
          dataDir,
          server.adminTokenFile(),
          listen.clientUri(server.port(), options.tls()),
          ca,
          meters,
          joined);
    } catch (ClusterSecrets.Refused e) {
      store.close();
      throw new CliException(e.getMessage());
    } catch (IOException | RuntimeException e) {
      store.close();
      if (isBindFailure(e)) {
        throw new CliException(
            "cannot listen on "
                + listen
                + ": address already in use"
                + " (is another qm server running? pick another address with --listen)");
      }
      throw e instanceof IOException io
          ? new UncheckedIOException(
              "cannot start the API server on " + listen + ": " + io.getMessage(), io)
          : (RuntimeException) e;
    }
  }

  private static Opened open(Path dataDir, StoreLocation where) {
    return switch (where) {
      case StoreLocation.Sqlite sqlite -> {
        try {
          var store =
              SqliteStore.open(
                  dataDir.resolve(STORE_FILE),
                  SqliteStore.Options.defaults(),
                  clusterEvidence(dataDir));
          yield new Opened(store, store);
        } catch (StoreInUseException e) {
          // another qm server holds this data directory: the store's message says exactly that
          throw new CliException(
              e.getMessage()
                  + " (is another qm server using "
                  + dataDir
                  + "? pick another with --data)");
        } catch (StoreException e) {
          // a missing, emptied or damaged store: the message names the file, what was found and
          // what to do
          throw new CliException(e.getMessage());
        }
      }
      case StoreLocation.Etcd etcd -> {
        var store = new EtcdStore(etcd.endpoints(), etcd.prefix());
        try {
          store.currentRevision();
        } catch (StoreException e) {
          store.close();
          throw new CliException(
              "cannot reach "
                  + etcd.describe()
                  + ": "
                  + e.getMessage()
                  + " (is etcd running? every member listed must be one of the same cluster)");
        }
        var tooOld = EtcdVersion.refusal(store.memberVersions(java.time.Duration.ofSeconds(5)));
        if (tooOld.isPresent()) {
          store.close();
          throw new CliException("cannot use " + etcd.describe() + ": " + tooOld.get());
        }
        yield new Opened(store, HistorySizes.UNKNOWN);
      }
    };
  }

  /**
   * What in a data dir shows a cluster ran there, besides the store's own marker (which data dirs
   * from before the marker lack): the admin token the server created, and the nodes' state from
   * {@code qm up}. A new empty store is refused while any of these exists.
   */
  static List<Path> clusterEvidence(Path dataDir) {
    return List.of(dataDir.resolve(AdminToken.FILE_NAME), dataDir.resolve(NODES_DIR));
  }

  /** The URL clients on this machine use. */
  public URI uri() {
    return uri;
  }

  /** The CA clients must trust, when it serves HTTPS; its file is {@link #caFile()}. */
  public Optional<X509Certificate> ca() {
    return ca;
  }

  public Path caFile() {
    return dataDir.resolve(ServerCertificates.DIR).resolve("ca.crt");
  }

  /** The cluster, in process: what {@code qm up}'s agents talk to. */
  /**
   * Creates device class {@code name} selecting every device of {@code deviceClass}, unless one of
   * that name exists (another server of the store may make it at the same moment).
   */
  public void ensureDeviceClass(String name, String deviceClass) {
    if (registry.get(Kinds.DEVICE_CLASS, name).isPresent()) {
      return;
    }
    try {
      registry.create(
          new DeviceClass(
              ObjectMeta.named(name),
              new DeviceClassSpec(deviceClass, List.of()),
              DeviceClassStatus.EMPTY));
    } catch (ApiException e) {
      if (!e.is(dev.quartermaster.api.error.ApiError.Reason.AlreadyExists)) {
        throw e;
      }
    }
  }

  public ObjectRegistry registry() {
    return registry;
  }

  /** What {@code /metrics} shows: {@code qm up} adds its in-process agents' meters here. */
  public MeterRegistry meters() {
    return meters;
  }

  public Store store() {
    return store;
  }

  /** Whether this server's controllers lead now. */
  /**
   * On etcd: the cluster this server joined, and whether it made the admin token and CA or copied
   * them.
   */
  public Optional<ClusterSecrets.Joined> joined() {
    return joined;
  }

  public boolean leads() {
    return controllers.isLeader();
  }

  public Path dataDir() {
    return dataDir;
  }

  public Path tokenFile() {
    return tokenFile;
  }

  /** Blocks until {@link #close} has finished. */
  public void awaitStopped() throws InterruptedException {
    stopped.await();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      compactor.close();
      controllers.close();
      server.close();
    } finally {
      store.close();
      stopped.countDown();
    }
  }

  /**
   * Fails, naming the address and a free one, if another process listens on {@code listen}: before
   * the data directory and its store are made, so that a taken port leaves nothing half made. (A
   * process that binds the port between this check and the server's own bind still fails the
   * server's bind, with the same words.)
   */
  static void refuseTaken(ListenAddress listen, Path dataDir) {
    if (listen.port() == 0) {
      return; // any free port: nothing to be taken
    }
    try (var probe = new ServerSocket()) {
      probe.setReuseAddress(
          true); // as the server binds: a closed connection's TIME_WAIT is no owner
      probe.bind(new InetSocketAddress(listen.host(), listen.port()));
    } catch (BindException e) {
      throw new CliException(
          "cannot listen on "
              + listen
              + ": address already in use (is another qm server running?); nothing in "
              + dataDir
              + " was created or changed; pick another address with --listen"
              + freeNear(listen).map(free -> ", e.g. --listen=" + free).orElse(""));
    } catch (IOException | IllegalArgumentException e) {
      // Not ours to judge here (an address of another host, say): the server's own bind says why.
    }
  }

  /** The first free port above {@code listen}'s on its host, to suggest; empty if none is near. */
  private static Optional<String> freeNear(ListenAddress listen) {
    for (int port = listen.port() + 1; port <= Math.min(65_535, listen.port() + 20); port++) {
      try (var probe = new ServerSocket()) {
        probe.setReuseAddress(true);
        probe.bind(new InetSocketAddress(listen.host(), port));
        var host = listen.host().contains(":") ? "[" + listen.host() + "]" : listen.host();
        return Optional.of(host + ":" + port);
      } catch (IOException | IllegalArgumentException e) {
        // taken too: try the next
      }
    }
    return Optional.empty();
  }

  private static boolean isBindFailure(Throwable e) {
    for (var t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException) {
        return true;
      }
    }
    return false;
  }
}
