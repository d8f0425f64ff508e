package dev.quartermaster.cli.commands;

import dev.quartermaster.agent.NodeAgent;
import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedGpuModel;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.logs.TaskLogEndpoint;
import dev.quartermaster.agent.logs.TaskLogStore;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.gang.TopologyKeys;
import dev.quartermaster.api.logs.TaskLogKey;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.LogEndpoint;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.config.UserConfig;
import dev.quartermaster.cli.metrics.AgentMeters;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.core.files.OwnerOnly;
import dev.quartermaster.csi.hostpath.HostpathConfig;
import dev.quartermaster.csi.hostpath.grpc.HostpathServer;
import dev.quartermaster.server.auth.AuthorizingApiClient;
import dev.quartermaster.server.auth.NodeScopedAccess;
import dev.quartermaster.server.auth.Principal;
import dev.quartermaster.server.tls.ServerCertificates;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code qm up}: the whole cluster in one process — the embedded store, the API, the controllers
 * and {@code --nodes} agents, each on a simulated device tree of {@code --gpus} GPUs with their
 * control nodes and {@code --channels} IMEX channels (or, for the first node, the host's real GPUs
 * when it has them). State lives under {@code --data}, so running it again resumes the same
 * cluster. The device classes {@code gpu} and {@code channel} are created. With {@code --topology}
 * the nodes are labelled with a simulated zone, rack and NVLink clique ({@link TopologyLayout}).
 */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Run a whole cluster on this machine (store, API, controllers, N agents), until Ctrl-C.")
public final class UpCommand implements Callable<Integer> {
  public static final String DEFAULT_DEVICE_CLASS = "gpu";

  /** The class a claim for IMEX channels asks for. */
  public static final String CHANNEL_DEVICE_CLASS = "channel";

  /** At most this many channels a node: with 16 GPUs they fit a DeviceSlice (8,192 devices). */
  static final int MAX_CHANNELS = 4096;

  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      defaultValue = ".qm",
      description =
          "directory for the store, the token and every node's state (default: ${DEFAULT-VALUE})")
  private String data;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = ServerCommand.DEFAULT_LISTEN,
      converter = ListenAddress.Converter.class,
      description = "address to serve the API on (default: ${DEFAULT-VALUE})")
  private ListenAddress listen;

  @Option(
      names = "--accept-lost-ledger",
      description =
          "start the nodes' agents even though the API server says claims are prepared on a node"
              + " that its ledger does not know (its journal was lost): they are forgotten, and the"
              + " log names them. Without it such a node stops the start, naming them")
  private boolean acceptLostLedger;

  @Option(
      names = "--nodes",
      paramLabel = "N",
      defaultValue = "2",
      description = "how many nodes (default: ${DEFAULT-VALUE})")
  private int nodes;

  @Option(
      names = "--gpus",
      paramLabel = "N",
      defaultValue = "4",
      description = "simulated GPUs per node (default: ${DEFAULT-VALUE})")
  private int gpus;

  @Option(
      names = "--simulated-model",
      paramLabel = "MODEL",
      defaultValue = "H100",
      description = {
        "the simulated GPUs' model, ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}); both can be "
            + "sliced with MIG (H200: 1g.18gb ... 7g.141gb).",
        "Applies when a node's device tree is made: a resumed cluster keeps the GPUs it has."
      })
  private SimulatedGpuModel simulatedModel;

  @Option(
      names = "--channels",
      paramLabel = "N",
      defaultValue = "" + SimulatedDeviceRoot.DEFAULT_CHANNELS,
      description = {
        "simulated IMEX channels per node, /dev/nvidia-caps-imex-channels/channel0..N-1, published as "
            + "devices of class 'channel' (default: ${DEFAULT-VALUE}, as on a real node; 0 for none; at most "
            + MAX_CHANNELS
            + ").",
        "Applies when a node's device tree is made: a resumed cluster keeps the channels it has."
      })
  private int channels;

  @Option(
      names = "--topology",
      paramLabel = "LEVEL=COUNT,...",
      description = {
        "lay the nodes out on a simulated topology: zones, racks and NVLink cliques, each a count "
            + "for the whole cluster (e.g. racks=2,cliques=4; a finer count is a multiple of a "
            + "coarser one). The nodes are labelled topology.quartermaster.dev/zone, /rack and "
            + "/nvlink-clique (zone-1, rack-1, clique-1, ...), node-1 onwards in order.",
        "Without it the nodes' labels are left as they are."
      })
  private Optional<String> topology = Optional.empty();

  @Mixin private HistoryOptions history = new HistoryOptions();

  public UpCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (nodes < 1 || nodes > 64) {
      throw new CliException("--nodes: must be between 1 and 64, got " + nodes);
    }
    if (gpus < 1 || gpus > 16) {
      throw new CliException("--gpus: must be between 1 and 16, got " + gpus);
    }
    if (channels < 0 || channels > MAX_CHANNELS) {
      throw new CliException(
          "--channels: must be between 0 and " + MAX_CHANNELS + ", got " + channels);
    }
    var layoutOfTopology = topology.map(t -> TopologyLayout.parse(t, nodes));
    var limits = history.limits();
    var out = spec.commandLine().getOut();
    var dataDir = env.resolve(data);
    var layout = UpLayout.of(dataDir);
    Env system = new SystemEnv();
    // Plain HTTP only on loopback: on any other address the API speaks TLS with the data dir's own
    // CA.
    var server =
        LocalServer.start(
            dataDir,
            listen,
            system,
            LocalServer.Options.defaults().withHistory(limits).withTls(!listen.isLoopback()));
    var agents = new ArrayList<NodeAgent>();
    var plugins = new ArrayList<HostpathServer>();
    var logEndpoints = new ArrayList<TaskLogEndpoint>();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> stop(logEndpoints, agents, plugins, server), "qm-up-shutdown"));
    // The agents serve task output as any agent does, on loopback, to a server that proves the
    // key of the admin token it holds.
    var logKey = TaskLogKey.ofToken(Files.readString(server.tokenFile()).strip());
    try {
      server.ensureDeviceClass(DEFAULT_DEVICE_CLASS, "gpu");
      server.ensureDeviceClass(CHANNEL_DEVICE_CLASS, "channel");
      server.ensureDeviceClass(TimeSlices.DEVICE_CLASS, TimeSlices.DEVICE_CLASS);
      server.ensureDeviceClass(MpsShares.DEVICE_CLASS, MpsShares.DEVICE_CLASS);
      var descriptions = new ArrayList<String>();
      for (int i = 1; i <= nodes; i++) {
        var node = "node-" + i;
        var root = rootFor(i, layout, node);
        int index = i - 1;
        descriptions.add(
            node
                + ": "
                + root.description()
                + layoutOfTopology.map(t -> "; " + t.describe(index, nodes)).orElse(""));
        Files.createDirectories(layout.state(node).toAbsolutePath().getParent());
        OwnerOnly.directory(layout.state(node)); // created 0700, not tightened later with a warning
        plugins.add(startHostpath(layout, node, i == 1));
        // In process, but held to exactly what an agent on another machine may write with its
        // node's token.
        var api =
            new AuthorizingApiClient(
                server.registry(), Principal.node(node), new NodeScopedAccess());
        // Several agents share this process's log: each one's lines say node=NAME.
        var nodeEnv = new NodeLogEnv(system, node);
        var config =
            NodeAgentConfig.of(
                    api, node, layout.state(node), root.root(), layout.cdi(node), nodeEnv)
                .withCsiPluginDir(layout.plugins(node))
                .withHelperCommand(DomainDaemonCommand.launcher(node));
        var lost =
            acceptLostLedger
                ? dev.quartermaster.agent.checkpoint.LostLedger.ACCEPT
                : dev.quartermaster.agent.checkpoint.LostLedger.REFUSE;
        var agent = nodeEnv.call(() -> NodeAgent.start(config, CsiClients.grpc(), lost));
        agents.add(agent);
        logEndpoints.add(
            TaskLogEndpoint.forAgent(
                agent,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                InetAddress.getLoopbackAddress().getHostAddress(),
                logKey,
                LogEndpoint.ADMIN_TOKEN,
                TaskLogStore.DEFAULT_MAX_BYTES));
        AgentMeters.register(server.meters(), agent);
      }
      if (layoutOfTopology.isPresent()) {
        for (int i = 0; i < nodes; i++) {
          labelNode(server, "node-" + (i + 1), layoutOfTopology.get().labels(i, nodes));
        }
      }
      var configChange =
          new UserConfig(
                  Optional.of(server.uri().toString()),
                  Optional.of(server.tokenFile().toString()),
                  server.ca().map(c -> server.caFile().toString()))
              .write(UserConfig.location(env));
      banner(out, server, layout, descriptions, configChange.describe());
    } catch (IOException | RuntimeException e) {
      stop(logEndpoints, agents, plugins, server);
      throw e;
    }
    server.awaitStopped();
    return 0;
  }

  /**
   * The built-in hostpath CSI plugin on {@code node}, serving its Node service (and on the first
   * node its Controller service too) on {@code nodes/<node>/plugins/hostpath.sock}, over volumes
   * shared by every node's instance, as a network storage system would be.
   */
  private static HostpathServer startHostpath(UpLayout layout, String node, boolean controller)
      throws IOException {
    Files.createDirectories(layout.plugins(node));
    var config = HostpathConfig.of(node, layout.hostpathState()).withRoles(controller, true);
    var socket = layout.plugins(node).resolve("hostpath.sock").toAbsolutePath();
    try {
      return HostpathServer.start(config, "unix://" + socket, Optional.empty());
    } catch (RuntimeException e) {
      throw new CliException(
          "cannot start the hostpath CSI plugin of "
              + node
              + " on "
              + socket
              + ": "
              + e.getMessage());
    }
  }

  /** Where a node's devices are, and how to say so in the banner. */
  private record NodeRoot(DeviceRoot root, String description) {}

  /**
   * The first node gets the host's GPUs when the host has an NVIDIA driver with GPUs; every other
   * node (and the first one elsewhere) a simulated tree, made once and reused when {@code qm up}
   * runs again.
   */
  private NodeRoot rootFor(int index, UpLayout layout, String node) throws IOException {
    var hostGpus = Path.of("/proc/driver/nvidia/gpus");
    if (index == 1 && Files.isDirectory(hostGpus)) {
      try (var gpusOnHost = Files.list(hostGpus)) {
        if (gpusOnHost.findAny().isPresent()) {
          return new NodeRoot(
              DeviceRoot.host(), "this machine's real GPUs (/dev, /proc/driver/nvidia)");
        }
      }
    }
    var dir = layout.deviceRoot(node);
    var resumed = Files.isDirectory(dir);
    var root = SimulatedDeviceRoot.ensure(dir, gpus, channels, simulatedModel);
    var kind =
        root.charDevices()
            ? "character devices"
            : "regular files (" + root.fallbackReason().orElse("mknod not permitted") + ")";
    return new NodeRoot(
        DeviceRoot.at(dir),
        root.gpuNames().size()
            + " simulated GPUs and "
            + root.channelCount()
            + " IMEX channels, device nodes as "
            + kind
            + (resumed ? ", resumed" : "")
            + ", in "
            + dir);
  }

  /**
   * The class {@code name} selecting every device of {@code deviceClass}, unless one by that name
   * exists: {@code gpu} (what the examples and most claims ask for) and {@code channel} (IMEX
   * channels).
   */
  /**
   * Gives node {@code name} exactly the topology labels {@code wanted} (the documented keys it does
   * not name are removed, so a resumed cluster laid out anew has no stale ones), as an operator
   * would: the agent registered the node and writes only its status.
   */
  private static void labelNode(LocalServer server, String name, Map<String, String> wanted) {
    var api = server.registry();
    for (int attempt = 0; ; attempt++) {
      var node =
          api.get(Kinds.NODE, name)
              .orElseThrow(() -> new CliException("node " + name + " did not register"));
      var labels = new TreeMap<>(node.metadata().labels());
      TopologyKeys.ALL.forEach(labels::remove);
      labels.putAll(wanted);
      if (labels.equals(new TreeMap<>(node.metadata().labels()))) {
        return;
      }
      try {
        api.update(node.withMetadata(node.metadata().withLabels(labels)));
        return;
      } catch (ApiException e) {
        // The agent's status write moved the revision: read again.
        if (!e.is(dev.quartermaster.api.error.ApiError.Reason.Conflict) || attempt >= 10) {
          throw e;
        }
      }
    }
  }

  private static void stop(
      List<TaskLogEndpoint> logEndpoints,
      List<NodeAgent> agents,
      List<HostpathServer> plugins,
      LocalServer server) {
    logEndpoints.forEach(TaskLogEndpoint::close);
    for (var agent : agents.reversed()) {
      try {
        agent.close();
        // A real agent leaves its domain daemons running across its own restart (I2). qm up stops
        // the whole cluster, its tasks included, so nothing needs them: they go with it (and the
        // next qm up starts them again for whatever the ledgers still hold).
        OsHelperProcesses.stopAll(agent.config().stateDir().resolve("helpers"));
      } catch (IOException | RuntimeException e) {
        System.err.println(
            "error: stopping agent " + agent.config().nodeName() + ": " + e.getMessage());
      }
    }
    plugins.forEach(HostpathServer::close);
    server.close();
  }

  private static void banner(
      PrintWriter out,
      LocalServer server,
      UpLayout layout,
      List<String> nodes,
      String configChange) {
    out.println(
        "Quartermaster "
            + VersionInfo.version()
            + " is up: store, API, controllers and "
            + nodes.size()
            + " node agents, each with the hostpath CSI plugin.");
    out.printf("  %-14s %s%n", "API", server.uri());
    out.printf(
        "  %-14s %s%n",
        "Dashboard", server.uri() + "/ (in a browser; log in with the admin token)");
    out.printf(
        "  %-14s %s%n",
        "State", layout.dataDir() + " (store.db, nodes/<node>/..., csi/hostpath/volumes)");
    out.printf("  %-14s %s%n", "Admin token", server.tokenFile());
    server
        .ca()
        .ifPresent(
            ca -> {
              out.printf("  %-14s %s%n", "CA", server.caFile());
              out.printf("  %-14s %s%n", "CA fingerprint", ServerCertificates.fingerprint(ca));
            });
    out.printf("  %-14s %s%n", "Client config", configChange);
    for (var n : nodes) {
      out.printf("  %-14s %s%n", "Node", n);
    }
    out.println();
    out.println("Next, in another terminal:");
    out.println("  ./qm apply -f examples/training.yaml");
    out.println("  ./qm get tasks -w");
    out.println("  ./qm describe node node-1");
    out.println("  ./qm apply -f examples/volumes.yaml && ./qm get volumes");
    out.println("  ./qm logs training-workers-0");
    out.println();
    out.println("Stop with Ctrl-C; ./qm up again resumes the same cluster.");
    out.flush();
  }
}
