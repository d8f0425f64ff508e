package dev.quartermaster.cli.commands;

import dev.quartermaster.agent.LedgerReset;
import dev.quartermaster.agent.LedgerShow;
import dev.quartermaster.agent.NodeAgent;
import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.agent.cdi.CdiDirs;
import dev.quartermaster.agent.checkpoint.BootId;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedGpuModel;
import dev.quartermaster.agent.logs.TaskLogEndpoint;
import dev.quartermaster.api.logs.TaskLogKey;
import dev.quartermaster.api.node.LogEndpoint;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.core.env.SystemEnv;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code qm agent}: the node agent, one per node. It registers its Node, publishes its devices,
 * prepares the claims allocated to it and runs its tasks, until SIGINT/SIGTERM. {@code qm agent
 * ledger show|reset} inspect and (explicitly) reset its ledger.
 */
@Command(
    name = "agent",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Run the node agent for one node, until Ctrl-C.")
public final class AgentCommand implements Callable<Integer> {
  private final CliEnvironment env;
  private final UnaryOperator<NodeAgentConfig> adjust;

  @Spec private CommandSpec spec;

  @Mixin private ClientOptions client = new ClientOptions();

  // Checked in call(), not by picocli: a required option here would also be demanded by `qm agent
  // ledger …`.
  @Option(names = "--node", paramLabel = "NAME", description = "this node's name (required)")
  private String node;

  @Option(
      names = "--state",
      paramLabel = "DIR",
      defaultValue = "/var/lib/quartermaster",
      description = "the agent's ledger, lock and task logs (default: ${DEFAULT-VALUE})")
  private String state;

  @Option(
      names = "--device-root",
      paramLabel = "DIR",
      defaultValue = "/",
      description =
          "where /dev and /proc are; a directory laid out the same way makes a simulated node (default: ${DEFAULT-VALUE})")
  private String deviceRoot;

  @Option(
      names = "--cdi-dir",
      paramLabel = "DIR",
      description =
          "where CDI specs are written (default: <state>/cdi for a simulated node; else /var/run/cdi when"
              + " writable, else <state>/cdi)")
  private String cdiDir;

  @Option(
      names = "--simulated-gpus",
      paramLabel = "N",
      description =
          "a simulated node with N GPUs (and IMEX channels), as qm up's nodes: the tree is made under --device-root"
              + " (default there: <state>/root) if it is not there yet")
  private Integer simulatedGpus;

  @Option(
      names = "--simulated-model",
      paramLabel = "MODEL",
      defaultValue = "H100",
      description =
          "the simulated GPUs' model, ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}); both can be"
              + " sliced with MIG. Applies when the tree is made: an existing tree keeps its GPUs")
  private SimulatedGpuModel simulatedModel;

  @Option(
      names = "--create-control-nodes",
      description =
          "create missing /dev/nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset at start, as nvidia-modprobe does")
  private boolean createControlNodes;

  @Option(
      names = "--accept-lost-ledger",
      description =
          "start even though the API server says claims are prepared on this node that the ledger"
              + " does not know (its journal was lost): they are forgotten, and the log names them."
              + " Without it such an agent refuses to start, naming them")
  private boolean acceptLostLedger;

  @Option(
      names = "--csi-plugin-dir",
      paramLabel = "DIR",
      description =
          "where CSI plugins put their sockets, one *.sock per plugin (default: <state>/plugins)")
  private String csiPluginDir;

  @Option(
      names = "--rescan",
      paramLabel = "SECONDS",
      defaultValue = "5",
      description =
          "how often the device nodes are checked again, besides file events (default: ${DEFAULT-VALUE})")
  private int rescanSeconds;

  @Option(
      names = "--logs-listen",
      paramLabel = "HOST:PORT",
      description =
          "where the API server reads this node's task output, over HTTPS (default: the address"
              + " this machine reaches the server from, on any free port; the Node's status.logs"
              + " says which)")
  private String logsListen;

  @Option(
      names = "--logs-advertise",
      paramLabel = "HOST",
      description =
          "the host the API server connects to for task output (default: the --logs-listen host;"
              + " for a wildcard listen, this host's address)")
  private String logsAdvertise;

  @Option(
      names = "--task-log-max",
      paramLabel = "MIB",
      defaultValue = "16",
      description =
          "the MiB of output a task keeps before its file is rotated (one rotated part is kept:"
              + " about twice this per task; default: ${DEFAULT-VALUE})")
  private int taskLogMaxMib;

  public AgentCommand(CliEnvironment env) {
    this(env, UnaryOperator.identity());
  }

  /**
   * An agent whose config passes through {@code adjust} after the flags made it: the partitions
   * harness runs naive agents this way, in processes started as {@code qm agent} is.
   */
  public AgentCommand(CliEnvironment env, UnaryOperator<NodeAgentConfig> adjust) {
    this.env = env;
    this.adjust = adjust;
  }

  /** {@code qm agent} with its {@code ledger} subcommands, bound to {@code env}. */
  public static CommandLine command(CliEnvironment env) {
    return new CommandLine(new AgentCommand(env))
        .addSubcommand(
            new CommandLine(new Ledger())
                .addSubcommand(new Show(env))
                .addSubcommand(new Reset(env)));
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (node == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "Missing required option: '--node=NAME'");
    }
    var stateDir = env.resolve(state);
    var cdi = cdiDir(CdiDirs.Probe.HOST);
    var connection = client.connect(env);
    if (rescanSeconds < 1) {
      throw new CliException("--rescan: must be >= 1 second, got " + rescanSeconds);
    }
    var devices = env.resolve(deviceRoot);
    if (simulatedGpus != null) {
      if (simulatedGpus < 1 || simulatedGpus > 64) {
        throw new CliException("--simulated-gpus: must be 1..64, got " + simulatedGpus);
      }
      devices = deviceRoot.equals("/") ? stateDir.resolve("root") : devices;
      java.nio.file.Files.createDirectories(stateDir);
      dev.quartermaster.core.files.OwnerOnly.directory(stateDir);
      SimulatedDeviceRoot.ensure(
          devices, simulatedGpus, SimulatedDeviceRoot.DEFAULT_CHANNELS, simulatedModel);
    }
    var config =
        NodeAgentConfig.of(
                connection.api(), node, stateDir, DeviceRoot.at(devices), cdi, new SystemEnv())
            .withCreateControlNodes(createControlNodes)
            .withRescanPeriod(java.time.Duration.ofSeconds(rescanSeconds))
            .withCsiPluginDir(
                csiPluginDir != null ? env.resolve(csiPluginDir) : stateDir.resolve("plugins"))
            .withHelperCommand(DomainDaemonCommand.launcher(node));
    config = adjust.apply(config);
    // A cluster that cannot take the start now (its store without a leader, a server restarting)
    // is waited for, as a kubelet waits to register: an agent that exited would leave its node's
    // tasks unwatched until someone started it again. A refusal (a revoked token, a lost ledger)
    // still ends the start.
    NodeAgent startedAgent;
    TaskLogEndpoint startedLogs;
    var wait = java.time.Duration.ofSeconds(1);
    while (true) {
      NodeAgent started = null;
      try {
        started =
            NodeAgent.start(
                config,
                CsiClients.grpc(),
                acceptLostLedger
                    ? dev.quartermaster.agent.checkpoint.LostLedger.ACCEPT
                    : dev.quartermaster.agent.checkpoint.LostLedger.REFUSE);
        startedLogs = serveLogs(started);
        startedAgent = started;
        break;
      } catch (IOException | RuntimeException e) {
        if (started != null) {
          started.close();
        }
        var passing = StartRetry.passing(e);
        if (passing.isEmpty()) {
          connection.close();
          throw e;
        }
        spec.commandLine()
            .getErr()
            .printf(
                "qm agent: node %s cannot start with the cluster now (%s); trying again in %ds%n",
                node, passing.get().getMessage(), wait.toSeconds());
        spec.commandLine().getErr().flush();
        Thread.sleep(wait);
        wait = StartRetry.next(wait);
      }
    }
    var agent = startedAgent;
    var logs = startedLogs;
    var stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    logs.close();
                    agent.close();
                  } catch (IOException e) {
                    System.err.println("error: closing the agent: " + e.getMessage());
                  } finally {
                    connection.close();
                    stopped.countDown();
                  }
                },
                "qm-agent-shutdown"));
    var out = spec.commandLine().getOut();
    out.println(
        "Quartermaster agent " + VersionInfo.version() + " for node " + node + " is running.");
    out.printf(
        "  %-12s %s%n  %-12s %s%n  %-12s %s%n  %-12s %s%n",
        "Server",
        client.config(env).servers().stream()
            .map(Object::toString)
            .collect(java.util.stream.Collectors.joining(", ")),
        "State",
        stateDir,
        "Devices",
        devices
            + (simulatedGpus != null
                ? " (simulated, " + simulatedGpus + " GPUs, " + simulatedModel + ")"
                : ""),
        "CDI specs",
        cdi);
    out.printf(
        "  %-12s https://%s (certificate SHA-256 %s)%n",
        "Task logs", logs.published().address(), logs.published().certificateSha256());
    out.println("Stop with Ctrl-C.");
    out.flush();
    stopped.await();
    return 0;
  }

  /**
   * Serves the node's task output where {@code --logs-listen} says, to servers proving the key of
   * this agent's token, and publishes it in the Node's status.
   */
  private TaskLogEndpoint serveLogs(NodeAgent agent) throws IOException {
    if (taskLogMaxMib < 1 || taskLogMaxMib > 4096) {
      throw new CliException("--task-log-max: must be 1..4096 MiB, got " + taskLogMaxMib);
    }
    var config = client.config(env);
    var token = config.readToken();
    var credential =
        dev.quartermaster.server.auth.NodeTokens.idOf(token)
            .map(LogEndpoint::nodeToken)
            .orElse(LogEndpoint.ADMIN_TOKEN);
    InetSocketAddress listen;
    if (logsListen != null) {
      ListenAddress at;
      try {
        at = ListenAddress.parse(logsListen);
      } catch (IllegalArgumentException e) {
        throw new CliException("--logs-listen '" + logsListen + "': " + e.getMessage());
      }
      listen = new InetSocketAddress(at.host(), at.port());
    } else {
      listen = new InetSocketAddress(sourceAddressTowards(config.server()), 0);
    }
    var advertise = TaskLogEndpoint.advertised(listen, Optional.ofNullable(logsAdvertise));
    try {
      return TaskLogEndpoint.forAgent(
          agent,
          listen,
          advertise,
          TaskLogKey.ofToken(token),
          credential,
          taskLogMaxMib * 1024L * 1024L);
    } catch (java.net.BindException e) {
      throw new CliException(
          "--logs-listen " + listen + ": cannot listen there: " + e.getMessage());
    }
  }

  /** The local address this machine sends from to reach {@code server} (no packet is sent). */
  private static InetAddress sourceAddressTowards(java.net.URI server) throws IOException {
    var host = InetAddress.getByName(server.getHost());
    if (host.isLoopbackAddress()) {
      return host;
    }
    try (var probe = new java.net.DatagramSocket()) {
      probe.connect(host, server.getPort() > 0 ? server.getPort() : 443);
      return probe.getLocalAddress();
    }
  }

  /** {@code --cdi-dir}, or the default for this node, simulated or not ({@link CdiDirs}). */
  Path cdiDir(CdiDirs.Probe probe) {
    return cdiDir != null
        ? env.resolve(cdiDir)
        : CdiDirs.defaultFor(env.resolve(state), simulatedGpus != null, probe);
  }

  @Command(
      name = "ledger",
      mixinStandardHelpOptions = true,
      description = "Inspect or reset an agent's claim ledger.")
  static final class Ledger implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "missing command: show or reset");
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Print the ledger in a state directory.")
  static final class Show implements Callable<Integer> {
    private final CliEnvironment env;

    @Option(names = "--state", required = true, paramLabel = "DIR")
    String state;

    Show(CliEnvironment env) {
      this.env = env;
    }

    @Override
    public Integer call() throws IOException {
      LedgerShow.run(env.resolve(state), new PrintStream(System.out, true, StandardCharsets.UTF_8));
      return 0;
    }
  }

  @Command(
      name = "reset",
      mixinStandardHelpOptions = true,
      description =
          "Empty the ledger (keeps a backup and lists every claim it drops). The agent must be stopped.")
  static final class Reset implements Callable<Integer> {
    private final CliEnvironment env;

    @Option(names = "--state", required = true, paramLabel = "DIR")
    String state;

    @Option(
        names = "--yes",
        description =
            "confirm: prepared claims are forgotten, their devices look free to this node")
    boolean yes;

    Reset(CliEnvironment env) {
      this.env = env;
    }

    @Override
    public Integer call() throws IOException {
      if (!yes) {
        throw new CliException(
            "resetting the ledger forgets every prepared claim on this node; "
                + "run 'qm agent ledger show --state "
                + state
                + "' first, then add --yes");
      }
      LedgerReset.run(
          env.resolve(state),
          BootId.current(),
          new SystemEnv(),
          new PrintStream(System.out, true, StandardCharsets.UTF_8));
      return 0;
    }
  }
}
