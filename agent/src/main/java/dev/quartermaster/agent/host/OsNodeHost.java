package dev.quartermaster.agent.host;

import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.agent.cdi.CdiSpecWriter;
import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.checkpoint.AtomicLedgerFile;
import dev.quartermaster.agent.checkpoint.LedgerFile;
import dev.quartermaster.agent.checkpoint.StateDirLock;
import dev.quartermaster.agent.effects.HelperProcesses;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.mps.MpsPaths;
import dev.quartermaster.agent.mps.OsMpsDaemons;
import dev.quartermaster.agent.tasks.TaskRuntimes;
import dev.quartermaster.agent.volumes.VolumePaths;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Function;

/**
 * The machine itself, as {@code qm agent} and {@code qm up} run on it: the ledger in {@code
 * <state>/ledger.json} (+ journal), CDI specs in the CDI directory, helpers as processes with pid
 * files under {@code <state>/helpers}, devices under the configured device root, tasks as local
 * processes or podman containers with run records under {@code <state>/tasks}, CSI plugins as the
 * {@code *.sock} files of the configured plugin directory, connected through the given client.
 */
public final class OsNodeHost implements NodeHost {
  private static final Duration HEALTH_POLL = Duration.ofSeconds(2);

  private final NodeAgentConfig config;
  private final LedgerFile ledger;
  private final ClaimSpecs specs;
  private final HelperProcesses helpers;
  private final HelperProcesses mpsDaemons;
  private final DeviceTree devices;
  private final TaskHost tasks;
  private final CsiEndpoints plugins;
  private final NodePublications publications;

  /**
   * A host whose CSI plugins (if a plugin directory is configured) cannot be connected: no client
   * wired.
   */
  public OsNodeHost(NodeAgentConfig config) throws IOException {
    this(
        config,
        endpoint -> {
          throw new CsiException(
              CsiCall.GetPluginInfo, CsiCode.UNAVAILABLE, "no CSI client is wired into this agent");
        });
  }

  /**
   * @param connect the CSI client for an endpoint ({@code GrpcCsiPlugin.open}, wired by the command
   *     line)
   */
  public OsNodeHost(NodeAgentConfig config, Function<String, CsiPlugin> connect)
      throws IOException {
    this.config = config;
    this.ledger = new AtomicLedgerFile(config.stateDir().resolve("ledger.json"));
    var mps = new MpsPaths(config.stateDir().resolve("mps"));
    this.specs = new CdiSpecWriter(config.cdiDir(), mps);
    this.helpers =
        new OsHelperProcesses(config.stateDir().resolve("helpers"), config.helperCommand());
    this.mpsDaemons = new OsMpsDaemons(mps, OsMpsDaemons.commandHere());
    this.devices = new HostDeviceTree(config.deviceRoot(), config.nvml(), HEALTH_POLL);
    this.tasks =
        new TaskRuntimes(
            config.env(),
            config.cdiDir(),
            config.podman(),
            NodeAgentConfig.tasksDir(config.stateDir()));
    this.plugins =
        config
            .csiPluginDir()
            .<CsiEndpoints>map(dir -> new OsCsiEndpoints(dir, connect))
            .orElse(CsiEndpoints.NONE);
    this.publications = new FilePublications(new VolumePaths(config.stateDir()).publishDir());
  }

  @Override
  public StateLock lockState() throws IOException {
    return StateDirLock.acquire(config.stateDir())::close;
  }

  @Override
  public LedgerFile ledgerFile() {
    return ledger;
  }

  @Override
  public ClaimSpecs claimSpecs() {
    return specs;
  }

  @Override
  public HelperProcesses helpers() {
    return helpers;
  }

  @Override
  public HelperProcesses mpsDaemons() {
    return mpsDaemons;
  }

  @Override
  public DeviceTree devices() {
    return devices;
  }

  @Override
  public TaskHost tasks() {
    return tasks;
  }

  @Override
  public DeviceHolders deviceHolders() {
    return ProcDeviceHolders.forRoot(config.deviceRoot());
  }

  @Override
  public CsiEndpoints csiPlugins() {
    return plugins;
  }

  @Override
  public NodePublications publications() {
    return publications;
  }
}
