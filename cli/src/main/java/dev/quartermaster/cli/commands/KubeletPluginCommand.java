package dev.quartermaster.cli.commands;

import dev.quartermaster.agent.checkpoint.BootId;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.nvml.NvmlLibrary;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.kubelet.kube.ApiClaimSource;
import dev.quartermaster.kubelet.kube.SlicePublisher;
import dev.quartermaster.kubelet.plugin.KubeletPlugin;
import dev.quartermaster.kubelet.plugin.KubeletPluginConfig;
import dev.quartermaster.kubelet.plugin.PluginSharing;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code qm kubelet-plugin}: the DRA kubelet plugin of one node, as a DaemonSet pod runs it. It
 * publishes the node's ResourceSlices, registers with the kubelet, and prepares and unprepares
 * claims through the agent's ledger (reading each claim's allocation from the API server), until
 * SIGINT/SIGTERM.
 */
@Command(
    name = "kubelet-plugin",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Run the DRA kubelet plugin for one node, until Ctrl-C: publish its GPUs and IMEX channels"
            + " as ResourceSlices and prepare the claims the kubelet asks for.")
public final class KubeletPluginCommand implements Callable<Integer> {
  /** How often the node is looked at for its ResourceSlices. */
  private static final Duration SLICE_PERIOD = Duration.ofSeconds(2);

  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Option(names = "--node", paramLabel = "NAME", required = true, description = "this node's name")
  private String node;

  @Option(
      names = "--state",
      paramLabel = "DIR",
      defaultValue = "/var/lib/quartermaster",
      description =
          "the ledger and its lock (default: ${DEFAULT-VALUE}, the agent's: one ledger per node's"
              + " GPUs, so an agent and a plugin cannot both run there)")
  private String state;

  @Option(
      names = "--registration-dir",
      paramLabel = "DIR",
      defaultValue = KubeletPluginConfig.DEFAULT_REGISTRATION_DIR,
      description = "where the kubelet looks for plugins (default: ${DEFAULT-VALUE})")
  private String registrationDir;

  @Option(
      names = "--plugin-dir",
      paramLabel = "DIR",
      defaultValue = KubeletPluginConfig.DEFAULT_PLUGIN_DIR,
      description = "where the DRA socket goes (default: ${DEFAULT-VALUE})")
  private String pluginDir;

  @Option(
      names = "--device-root",
      paramLabel = "DIR",
      defaultValue = "/",
      description = "where /dev and /proc are (default: ${DEFAULT-VALUE})")
  private String deviceRoot;

  @Option(
      names = "--cdi-dir",
      paramLabel = "DIR",
      defaultValue = "/var/run/cdi",
      description =
          "where CDI specs are written; the container runtime must read it (default: ${DEFAULT-VALUE})")
  private String cdiDir;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "credentials for the API server (default: $KUBECONFIG, ~/.kube/config, or the pod's"
              + " service account)")
  private String kubeconfig;

  @Option(
      names = "--helper-command",
      paramLabel = "CMD",
      split = " ",
      description =
          "the compute-domain helper, started while a prepared claim asks for its domain;"
              + " {domain} and {socket} are replaced (default: sleep infinity)")
  private List<String> helperCommand = OsHelperProcesses.DEFAULT_COMMAND;

  @Option(
      names = "--share",
      paramLabel = "GPU=MODE",
      description =
          "share a GPU: GPU=mig (MIG slices, made at prepare), GPU=mps:CLIENTS (MPS shares with"
              + " compute and memory limits) or GPU=timeslice:REPLICAS (no isolation); repeat per"
              + " GPU; a GPU not named is offered whole")
  private List<String> share = List.of();

  public KubeletPluginCommand(CliEnvironment env) {
    this.env = env;
  }

  /** The plugin's configuration from the flags, with {@code bootId}. */
  KubeletPluginConfig config(String bootId) {
    if (!KubeletPluginConfig.isNodeName(node)) {
      throw new CliException(
          "--node '"
              + KubeletPluginConfig.printable(node)
              + "': "
              + KubeletPluginConfig.NODE_NAME_RULE);
    }
    return new KubeletPluginConfig(
        KubeletPluginConfig.DEFAULT_DRIVER,
        node,
        env.resolve(state),
        env.resolve(registrationDir),
        env.resolve(pluginDir),
        env.resolve(cdiDir),
        DeviceRoot.at(env.resolve(deviceRoot)),
        NvmlLibrary::load,
        bootId,
        new SystemEnv(),
        ClaimLedger.DEFAULT_TOMBSTONE_TTL,
        helperCommand,
        sharing());
  }

  private PluginSharing sharing() {
    try {
      return PluginSharing.parse(share);
    } catch (PluginSharing.Invalid e) {
      throw new CliException(e.getMessage());
    }
  }

  /** A client from {@code --kubeconfig}, or fabric8's usual search when it is not given. */
  KubernetesClient client() {
    Config config;
    if (kubeconfig == null) {
      config = Config.autoConfigure(null);
    } else {
      var file = env.resolve(kubeconfig);
      try {
        config = Config.fromKubeconfig(Files.readString(file));
      } catch (NoSuchFileException e) {
        throw new CliException("--kubeconfig " + file + ": no such file");
      } catch (IOException | RuntimeException e) {
        throw new CliException("--kubeconfig " + file + ": not a kubeconfig: " + e.getMessage());
      }
    }
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    var config = config(BootId.current());
    var client = client();
    var plugin = KubeletPlugin.start(config, new ApiClaimSource(client, config.driverName()));
    var slices =
        new SlicePublisher(config.env(), client, config.driverName(), node, plugin::look)
            .start(SLICE_PERIOD);
    plugin.onRegistered(slices::lookNow);
    var stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    slices.close();
                    plugin.close();
                    client.close();
                  } catch (IOException e) {
                    System.err.println("error: closing the kubelet plugin: " + e.getMessage());
                  } finally {
                    stopped.countDown();
                  }
                },
                "qm-kubelet-plugin-shutdown"));
    var out = spec.commandLine().getOut();
    out.println(
        "Quartermaster DRA kubelet plugin "
            + VersionInfo.version()
            + " ("
            + config.driverName()
            + ") for node "
            + node
            + " is running.");
    out.printf(
        "  %-13s %s%n  %-13s %s%n  %-13s %s%n  %-13s %s%n",
        "Registration",
        config.registrationSocket(),
        "DRA",
        config.draSocket(),
        "State",
        config.stateDir(),
        "CDI specs",
        config.cdiDir());
    out.printf("  %-13s %s%n", "API server", client.getMasterUrl());
    out.println("Stop with Ctrl-C.");
    out.flush();
    stopped.await();
    return 0;
  }
}
