package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.config.UserConfig;
import dev.quartermaster.server.tls.ServerCertificates;
import dev.quartermaster.core.env.SystemEnv;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code qm server}: the control plane on this machine. Runs until SIGINT/SIGTERM; the shutdown hook
 * closes the HTTP server, then the store, so the last acknowledged write is on disk.
 */
@Command(name = "server", mixinStandardHelpOptions = true, versionProvider = VersionInfo.class,
    description = "Run the API server with its embedded store, until Ctrl-C.")
public final class ServerCommand implements Callable<Integer> {
  public static final String DEFAULT_LISTEN = "127.0.0.1:7480";

  private final CliEnvironment env;

  @Spec
  private CommandSpec spec;

  @Option(names = "--data", paramLabel = "DIR", defaultValue = ".qm",
      description = "directory for the store and the admin token (default: ${DEFAULT-VALUE})")
  private String data;

  @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = DEFAULT_LISTEN, converter = ListenAddress.Converter.class,
      description = "address to serve the API on (default: ${DEFAULT-VALUE})")
  private ListenAddress listen;

  @Mixin
  private HistoryOptions history = new HistoryOptions();

  @Option(names = "--tls",
      description = "serve HTTPS on a loopback address too (on any other address it always does: plain HTTP only on loopback)")
  private boolean tls;

  @Option(names = "--check",
      description = "run SQLite's full integrity check on the store in --data, print the result and exit (1 if damaged); safe while a server runs")
  private boolean check;

  public ServerCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() throws InterruptedException {
    if (check) {
      return StoreCheck.run(env.resolve(data).resolve(LocalServer.STORE_FILE), spec.commandLine().getOut());
    }
    var server = LocalServer.start(env.resolve(data), listen, new SystemEnv(),
        LocalServer.Options.defaults().withHistory(history.limits()).withTls(tls || !listen.isLoopback()));
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "qm-server-shutdown"));
    var configFile = UserConfig.location(env);
    new UserConfig(Optional.of(server.uri().toString()), Optional.of(server.tokenFile().toString()),
        server.ca().map(c -> server.caFile().toString())).write(configFile);
    banner(spec.commandLine().getOut(), server, configFile.toString());
    server.awaitStopped();
    return 0;
  }

  private static void banner(PrintWriter out, LocalServer server, String configFile) {
    out.println("Quartermaster server " + VersionInfo.version() + " is running.");
    row(out, "API", server.uri().toString());
    row(out, "State", server.dataDir() + " (" + LocalServer.STORE_FILE + ")");
    row(out, "Admin token", server.tokenFile().toString());
    server.ca().ifPresent(ca -> {
      row(out, "CA", server.caFile() + " (clients trust this: qm --ca-file, or copy it beside them)");
      row(out, "CA fingerprint", ServerCertificates.fingerprint(ca));
    });
    row(out, "Client config", configFile + " (qm commands on this machine use it)");
    out.println();
    out.println("Next:");
    out.println("  ./qm apply -f examples/");
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
