package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.csi.hostpath.HostpathConfig;
import dev.quartermaster.csi.hostpath.Staging;
import dev.quartermaster.csi.hostpath.grpc.HostpathServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code qm csi}: CSI plugins that ship with Quartermaster; {@code qm csi hostpath} runs the
 * hostpath one.
 */
@Command(
    name = "csi",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Run a built-in CSI plugin.")
public final class CsiCommand implements Runnable {
  @Spec private CommandSpec spec;

  /** {@code qm csi} with its subcommands, bound to {@code env}. */
  public static CommandLine command(CliEnvironment env) {
    return new CommandLine(new CsiCommand()).addSubcommand(new Hostpath(env));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command: hostpath");
  }

  /** {@code auto}, {@code bind-mount} or {@code symlink}. */
  static final class StagingConverter implements CommandLine.ITypeConverter<Staging> {
    @Override
    public Staging convert(String value) {
      try {
        return Staging.valueOf(value.trim().replace('-', '_').toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "': use auto, bind-mount or symlink");
      }
    }
  }

  /**
   * {@code qm csi hostpath}: the hostpath plugin on a Unix socket until SIGINT/SIGTERM. Prints one
   * line saying where it listens, so that a script (or a test) can wait for it.
   */
  @Command(
      name = "hostpath",
      mixinStandardHelpOptions = true,
      description =
          "Serve the hostpath CSI plugin (volumes are directories under --state) until killed.")
  static final class Hostpath implements Callable<Integer> {
    private final CliEnvironment env;

    @Spec CommandSpec spec;

    @Option(
        names = "--endpoint",
        required = true,
        paramLabel = "unix:///PATH",
        description = "the Unix socket to serve on (unix:///abs/path or an absolute path)")
    String endpoint;

    @Option(
        names = "--node-id",
        required = true,
        paramLabel = "ID",
        description = "this node's CSI node id")
    String nodeId;

    @Option(
        names = "--state",
        required = true,
        paramLabel = "DIR",
        description = "volumes and state files")
    String state;

    @Option(
        names = "--capacity",
        paramLabel = "SIZE",
        defaultValue = "10Gi",
        converter = ByteSizeConverter.class,
        description = "total size CreateVolume may hand out (default: ${DEFAULT-VALUE})")
    long capacity;

    @Option(
        names = "--device-slots",
        paramLabel = "N",
        defaultValue = "16",
        description =
            "volumes attachable per node, i.e. device names /dev/xvdb.. (default: ${DEFAULT-VALUE})")
    int deviceSlots;

    @ArgGroup(exclusive = true)
    Role role;

    static final class Role {
      @Option(names = "--controller-only", description = "serve Identity and Controller only")
      boolean controllerOnly;

      @Option(names = "--node-only", description = "serve Identity and Node only")
      boolean nodeOnly;
    }

    @Option(
        names = "--detect-overlap",
        description =
            "refuse (ABORTED) and count a destructive controller call that overlaps another")
    boolean detectOverlap;

    @Option(
        names = "--metrics-listen",
        paramLabel = "HOST:PORT",
        converter = ListenAddress.Converter.class,
        description = "serve Prometheus text at /metrics (call and overlap counters)")
    ListenAddress metricsListen;

    @Option(
        names = "--staging",
        paramLabel = "METHOD",
        defaultValue = "auto",
        converter = StagingConverter.class,
        description =
            "auto (bind mounts where permitted, else symlinks), bind-mount or symlink (default: ${DEFAULT-VALUE})")
    Staging staging;

    @Option(
        names = "--call-latency",
        paramLabel = "DURATION",
        defaultValue = "0ms",
        converter = DurationConverter.class,
        description = "artificial delay in every call, e.g. 20ms (for tests)")
    Duration callLatency;

    Hostpath(CliEnvironment env) {
      this.env = env;
    }

    @Override
    public Integer call() throws InterruptedException {
      boolean controller = role == null || !role.nodeOnly;
      boolean node = role == null || !role.controllerOnly;
      HostpathConfig config;
      try {
        config =
            new HostpathConfig(
                nodeId,
                env.resolve(state),
                capacity,
                deviceSlots,
                controller,
                node,
                detectOverlap,
                callLatency,
                staging);
      } catch (IllegalArgumentException e) {
        throw new CliException(e.getMessage());
      }
      var metrics =
          Optional.ofNullable(metricsListen).map(a -> new InetSocketAddress(a.host(), a.port()));
      HostpathServer server;
      try {
        server = HostpathServer.start(config, endpoint, metrics);
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new CliException(e.getMessage());
      }
      var stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    server.close();
                    stopped.countDown();
                  },
                  "qm-csi-shutdown"));
      var out = spec.commandLine().getOut();
      var roles = controller && node ? "controller+node" : controller ? "controller" : "node";
      out.println(
          HostpathConfig.PLUGIN_NAME
              + " listening on "
              + server.endpoint()
              + " (node "
              + nodeId
              + ", "
              + roles
              + staging(server)
              + ", state "
              + config.stateDir()
              + server
                  .metricsAddress()
                  .map(a -> ", metrics " + metricsListen.clientUri(a.getPort()) + "/metrics")
                  .orElse("")
              + ")");
      out.flush();
      stopped.await();
      return 0;
    }

    private static String staging(HostpathServer server) {
      return server
          .plugin()
          .stagingMethod()
          .map(m -> ", staging " + m.name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .orElse("");
    }
  }
}
