package dev.quartermaster.cli.commands;

import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.config.UserConfig;
import dev.quartermaster.control.leader.LeaderConfig;
import dev.quartermaster.control.leader.LeaseRecord;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.tls.ServerCertificates;
import dev.quartermaster.store.StoreLeases;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code qm server}: the control plane on this machine. Runs until SIGINT/SIGTERM; the shutdown
 * hook closes the HTTP server, then the store, so the last acknowledged write is on disk. On etcd
 * ({@code --store etcd://…}) any number of servers share one cluster: all serve the API, one (the
 * elected leader) runs the controllers.
 */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Run the API server and the controllers, on SQLite in --data or on a shared etcd, until Ctrl-C.")
public final class ServerCommand implements Callable<Integer> {
  /** Where a cluster's keys live in etcd unless {@code --etcd-prefix} says otherwise. */
  public static final String DEFAULT_ETCD_PREFIX = "/qm";

  public static final String DEFAULT_LISTEN = "127.0.0.1:7480";

  private final CliEnvironment env;

  private final UnaryOperator<LocalServer.Options> adjust;

  @Spec private CommandSpec spec;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      defaultValue = ".qm",
      description = "directory for the store and the admin token (default: ${DEFAULT-VALUE})")
  private String data;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = DEFAULT_LISTEN,
      converter = ListenAddress.Converter.class,
      description = "address to serve the API on (default: ${DEFAULT-VALUE})")
  private ListenAddress listen;

  @Mixin private HistoryOptions history = new HistoryOptions();

  @Option(
      names = "--tls",
      description =
          "serve HTTPS on a loopback address too (on any other address it always does: plain HTTP only on loopback)")
  private boolean tls;

  @Option(
      names = "--store",
      paramLabel = "STORE",
      defaultValue = "sqlite",
      description =
          "sqlite (in --data; one server), or etcd://HOST:PORT[,HOST:PORT…] (shared by every server of the cluster) (default: ${DEFAULT-VALUE})")
  private String store;

  @Option(
      names = "--etcd-prefix",
      paramLabel = "PREFIX",
      defaultValue = DEFAULT_ETCD_PREFIX,
      description =
          "every key this cluster keeps in etcd starts with it; one etcd can hold several clusters (default: ${DEFAULT-VALUE})")
  private String etcdPrefix;

  @Option(
      names = "--leader-lease",
      paramLabel = "DURATION",
      defaultValue = "15s",
      converter = DurationConverter.class,
      description =
          "how long a silent leader keeps the controllers before another server takes them over; the leader"
              + " itself stops after 2/3 of it without a renewal (default: ${DEFAULT-VALUE})")
  private java.time.Duration leaderLease;

  @Option(
      names = "--check",
      description =
          "run SQLite's full integrity check on the store in --data and verify every stored value against its"
              + " checksum, print the result (each corrupt value by key) and exit (1 if damaged); safe while a server runs")
  private boolean check;

  public ServerCommand(CliEnvironment env) {
    this(env, UnaryOperator.identity());
  }

  /**
   * A server whose options pass through {@code adjust} after the flags made them: the partitions
   * harness runs naive control planes this way, in processes started as {@code qm server} is.
   */
  public ServerCommand(CliEnvironment env, UnaryOperator<LocalServer.Options> adjust) {
    this.env = env;
    this.adjust = adjust;
  }

  @Override
  public Integer call() throws InterruptedException {
    var where = StoreLocation.parse(store, etcdPrefix);
    if (check) {
      if (!(where instanceof StoreLocation.Sqlite)) {
        throw new CliException(
            "--check examines a SQLite store in --data; for etcd use etcdctl check / endpoint health");
      }
      return StoreCheck.run(
          env.resolve(data).resolve(LocalServer.STORE_FILE), spec.commandLine().getOut());
    }
    var server =
        LocalServer.start(
            env.resolve(data),
            listen,
            new SystemEnv(),
            adjust.apply(
                LocalServer.Options.defaults()
                    .withHistory(history.limits())
                    .withTls(tls || !listen.isLoopback())
                    .withStore(where)
                    .withLeader(leaderConfig(leaderLease))
                    .withIdentity(identity())));
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "qm-server-shutdown"));
    // The class of the IMEX channels every compute domain's tasks claim (a name fixed in code, not
    // the operator's choice): without it a domain's workers wait NoSuchDeviceClass.
    server.ensureDeviceClass(
        ComputeDomainSpec.CHANNEL_DEVICE_CLASS, ComputeDomainSpec.CHANNEL_DEVICE_CLASS);
    var configChange =
        new UserConfig(
                Optional.of(server.uri().toString()),
                Optional.of(server.tokenFile().toString()),
                server.ca().map(c -> server.caFile().toString()))
            .write(UserConfig.location(env));
    banner(spec.commandLine().getOut(), server, where, configChange.describe());
    server.awaitStopped();
    return 0;
  }

  private String identity() {
    return hostName() + "/" + listen + "/pid-" + ProcessHandle.current().pid();
  }

  /**
   * What this server's controllers do, said truly at the moment of the banner: a server that does
   * not lead yet is either taking a lease nobody holds (it leads within a moment, and its log says
   * {@code controllers starting}) or waiting while another server holds it.
   */
  static String controllersState(
      boolean leads, Optional<LeaseRecord> lease, String self, long nowMillis) {
    if (leads) {
      return "this one leads now";
    }
    var holder =
        lease
            .filter(l -> !l.holder().equals(self))
            .filter(l -> nowMillis - l.renewMillis() < l.leaseMillis());
    if (holder.isEmpty()) {
      return "this one is taking the lease, which no server holds now (its log says 'controllers"
          + " starting' when it leads)";
    }
    return "this one waits: "
        + holder.get().holder()
        + " holds the lease; this one takes over if that one goes silent for "
        + holder.get().leaseMillis() / 1000.0
        + " s (its log then says 'controllers starting')";
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "localhost";
    }
  }

  /** The lease, with the renew deadline at 2/3 of it and a retry every 2/15 (15 s: 10 s, 2 s). */
  static LeaderConfig leaderConfig(java.time.Duration lease) {
    if (lease.compareTo(java.time.Duration.ofSeconds(3)) < 0
        || lease.compareTo(java.time.Duration.ofMinutes(10)) > 0) {
      throw new CliException("--leader-lease: must be 3s..10m, got " + lease.toMillis() + " ms");
    }
    return new LeaderConfig(
        lease,
        lease.multipliedBy(2).dividedBy(3),
        lease.multipliedBy(2).dividedBy(15),
        LeaderConfig.DEFAULTS.key());
  }

  /**
   * Whether this server made the cluster's admin token and CA (the first on an empty etcd) or
   * copied them.
   */
  static String secretsOrigin(LocalServer server) {
    var joined = server.joined();
    boolean token = joined.map(j -> j.madeToken()).orElse(false);
    boolean ca = joined.map(j -> j.madeCa()).orElse(false);
    return token && ca
        ? "the cluster's admin token and CA: made by this server, kept in etcd"
        : token
            ? "the cluster's admin token: made by this server, kept in etcd"
            : ca
                ? "the cluster's CA: made by this server, kept in etcd; its admin token copied from etcd"
                : "the cluster's admin token and CA, copied from etcd";
  }

  private void banner(
      PrintWriter out, LocalServer server, StoreLocation where, String configChange) {
    out.println("Quartermaster server " + VersionInfo.version() + " is running.");
    row(out, "API", server.uri().toString());
    row(out, "Dashboard", server.uri() + "/ (in a browser; log in with the admin token)");
    if (where instanceof StoreLocation.Etcd etcd) {
      row(out, "Store", etcd.describe());
      row(
          out,
          "Controllers",
          "run by one elected server of those on this store (lease "
              + leaderLease.toMillis() / 1000.0
              + " s"
              + "); "
              + controllersState(
                  server.leads(),
                  new StoreLeases(server.store())
                      .read(LeaderConfig.DEFAULTS.key())
                      .map(v -> LeaseRecord.decode(v.value())),
                  identity(),
                  new SystemEnv().now().toEpochMilli()));
      row(out, "Data", server.dataDir() + " (" + secretsOrigin(server) + ")");
    } else {
      row(out, "State", server.dataDir() + " (" + LocalServer.STORE_FILE + ")");
    }
    row(out, "Admin token", server.tokenFile().toString());
    server
        .ca()
        .ifPresent(
            ca -> {
              row(
                  out,
                  "CA",
                  server.caFile() + " (clients trust this: qm --ca-file, or copy it beside them)");
              row(out, "CA fingerprint", ServerCertificates.fingerprint(ca));
            });
    row(out, "Client config", configChange);
    out.println();
    out.println("Next:");
    // Not all of examples/: a server starts with no GPU device class, and together they ask for 17
    // GPUs.
    out.println(
        "  ./qm apply -f examples/deviceclass.yaml -f examples/training.yaml   (once agents have joined)");
    out.println("  ./qm get nodes");
    out.println("  ./qm get workloads -w");
    out.println();
    out.println("Stop with Ctrl-C.");
    out.flush();
  }

  private static void row(PrintWriter out, String label, String value) {
    out.printf("  %-14s %s%n", label, value);
  }
}
