package dev.quartermaster.agent;

import dev.quartermaster.agent.checkpoint.BootId;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.nvml.NvmlLibrary;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.agent.runtime.PodmanOptions;
import dev.quartermaster.agent.tasks.ClaimRelease;
import dev.quartermaster.agent.tasks.ClaimUse;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * How a {@link NodeAgent} runs.
 *
 * @param api the cluster (HTTP client, or an in-process registry)
 * @param nodeName this node's name (a DNS label)
 * @param stateDir where the ledger checkpoint, the lock, helper pid files and task logs ({@code
 *     tasks/<task>.log}) live
 * @param deviceRoot where devices are found ({@code /}, or a simulated root)
 * @param cdiDir where per-claim CDI specs are written
 * @param bootId the kernel boot id (from /proc, or injected by tests)
 * @param heartbeat how often the Node's heartbeat is written
 * @param tombstoneTtl how long an unprepared claim's late prepare is refused
 * @param helperCommand the per-domain helper command; {@code {domain}} is replaced
 * @param workers claims (and, separately, tasks) reconciled at once
 * @param rescanPeriod how often the control nodes are re-checked besides the file watch: a node
 *     that appears makes the node {@code DevicesReady} within one period
 * @param createControlNodes create missing control nodes as nvidia-modprobe does ({@code
 *     --create-control-nodes}) before the first check and on every change
 * @param healthCleanPeriod how long a GPU must go without a fault to be healthy again
 * @param nvml loads NVML (used only when the device root is {@code /})
 * @param podman how the {@code podman} task runtime calls podman (the CDI dir is added to its spec
 *     dirs)
 * @param csiPluginDir where CSI plugins put their sockets ({@code *.sock}); empty: no plugins are
 *     looked for
 * @param releaseView what the claim sync's question "may this claim be released?" goes through (the
 *     identity: {@link ClaimUse} answers from this node's live task processes; a harness's naive
 *     agent answers as the store says instead, to show what that breaks)
 */
public record NodeAgentConfig(
    ApiClient api,
    String nodeName,
    Path stateDir,
    DeviceRoot deviceRoot,
    Path cdiDir,
    Env env,
    String bootId,
    Duration heartbeat,
    Duration tombstoneTtl,
    List<String> helperCommand,
    int workers,
    Duration rescanPeriod,
    boolean createControlNodes,
    Duration healthCleanPeriod,
    Supplier<NvmlLoad> nvml,
    PodmanOptions podman,
    Optional<Path> csiPluginDir,
    UnaryOperator<ClaimRelease> releaseView) {
  public static final Duration DEFAULT_RESCAN = Duration.ofSeconds(5);
  public static final Duration DEFAULT_HEALTH_CLEAN_PERIOD = Duration.ofMinutes(5);

  public NodeAgentConfig {
    Objects.requireNonNull(api, "api");
    Objects.requireNonNull(stateDir, "stateDir");
    Objects.requireNonNull(deviceRoot, "deviceRoot");
    Objects.requireNonNull(cdiDir, "cdiDir");
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(bootId, "bootId");
    Objects.requireNonNull(nvml, "nvml");
    Objects.requireNonNull(podman, "podman");
    csiPluginDir = csiPluginDir == null ? Optional.empty() : csiPluginDir;
    releaseView = releaseView == null ? UnaryOperator.identity() : releaseView;
    if (nodeName == null || !Names.isDnsLabel(nodeName)) {
      throw new IllegalArgumentException("node name '" + nodeName + "': " + Names.DNS_LABEL_RULE);
    }
    helperCommand = List.copyOf(helperCommand);
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1: " + workers);
    }
    requirePositive("rescan period", rescanPeriod);
    requirePositive("heartbeat", heartbeat);
    requirePositive("health clean period", healthCleanPeriod);
  }

  /** Without a CSI plugin directory (the shape callers had before volumes). */
  public NodeAgentConfig(
      ApiClient api,
      String nodeName,
      Path stateDir,
      DeviceRoot deviceRoot,
      Path cdiDir,
      Env env,
      String bootId,
      Duration heartbeat,
      Duration tombstoneTtl,
      List<String> helperCommand,
      int workers,
      Duration rescanPeriod,
      boolean createControlNodes,
      Duration healthCleanPeriod,
      Supplier<NvmlLoad> nvml,
      PodmanOptions podman) {
    this(
        api,
        nodeName,
        stateDir,
        deviceRoot,
        cdiDir,
        env,
        bootId,
        heartbeat,
        tombstoneTtl,
        helperCommand,
        workers,
        rescanPeriod,
        createControlNodes,
        healthCleanPeriod,
        nvml,
        podman,
        Optional.empty(),
        UnaryOperator.identity());
  }

  private static void requirePositive(String what, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + d);
    }
  }

  /**
   * A config with defaults: boot id from /proc, 10 s heartbeat, 90 s tombstones, {@code sleep
   * infinity} helpers, 5 s control-node rescan, no creation of control nodes, 5 min health clean
   * period, NVML from the system, podman with {@link PodmanOptions#defaults()}.
   */
  public static NodeAgentConfig of(
      ApiClient api, String nodeName, Path stateDir, DeviceRoot deviceRoot, Path cdiDir, Env env)
      throws IOException {
    return new NodeAgentConfig(
        api,
        nodeName,
        stateDir,
        deviceRoot,
        cdiDir,
        env,
        BootId.current(),
        Duration.ofSeconds(10),
        ClaimLedger.DEFAULT_TOMBSTONE_TTL,
        OsHelperProcesses.DEFAULT_COMMAND,
        4,
        DEFAULT_RESCAN,
        false,
        DEFAULT_HEALTH_CLEAN_PERIOD,
        NvmlLibrary::load,
        PodmanOptions.defaults());
  }

  /**
   * Where task {@code name}'s output goes: {@code <state>/tasks/<name>.log} (served by the node's
   * log endpoint).
   */
  public Path taskLog(String name) {
    return taskLog(stateDir, name);
  }

  /** The task-output layout of an agent's state directory, for readers outside the agent. */
  public static Path taskLog(Path stateDir, String name) {
    return tasksDir(stateDir).resolve(name + ".log");
  }

  /**
   * Where the output of the task's previous attempt on this node is kept ({@code
   * <task>.previous.log}).
   */
  public static Path previousTaskLog(Path stateDir, String name) {
    return dev.quartermaster.agent.tasks.TaskLogs.previous(taskLog(stateDir, name));
  }

  public static Path tasksDir(Path stateDir) {
    return stateDir.resolve("tasks");
  }

  /**
   * This config with what {@code change} sets on a {@link Builder} that starts from its fields; the
   * record's checks run again on the result. The one way to derive a config: the {@code with…}
   * methods below are its common uses.
   */
  public NodeAgentConfig with(Consumer<Builder> change) {
    var builder = new Builder(this);
    change.accept(builder);
    return builder.build();
  }

  public NodeAgentConfig withBootId(String id) {
    return with(b -> b.bootId = id);
  }

  public NodeAgentConfig withHeartbeat(Duration every) {
    return with(b -> b.heartbeat = every);
  }

  public NodeAgentConfig withHelperCommand(List<String> command) {
    return with(b -> b.helperCommand = command);
  }

  public NodeAgentConfig withRescanPeriod(Duration every) {
    return with(b -> b.rescanPeriod = every);
  }

  /** {@code --create-control-nodes}. */
  public NodeAgentConfig withCreateControlNodes(boolean create) {
    return with(b -> b.createControlNodes = create);
  }

  public NodeAgentConfig withHealthCleanPeriod(Duration period) {
    return with(b -> b.healthCleanPeriod = period);
  }

  /** Where NVML comes from (tests pass a stub, or one that is always unavailable). */
  public NodeAgentConfig withNvml(Supplier<NvmlLoad> loader) {
    return with(b -> b.nvml = loader);
  }

  public NodeAgentConfig withPodman(PodmanOptions options) {
    return with(b -> b.podman = options);
  }

  /** Where CSI plugin sockets are looked for ({@code --csi-plugin-dir}). */
  public NodeAgentConfig withCsiPluginDir(Path dir) {
    return with(b -> b.csiPluginDir = Optional.of(dir));
  }

  public NodeAgentConfig withWorkers(int count) {
    return with(b -> b.workers = count);
  }

  /** The fields of a {@link NodeAgentConfig}, each settable, for {@link NodeAgentConfig#with}. */
  public static final class Builder {
    public ApiClient api;
    public String nodeName;
    public Path stateDir;
    public DeviceRoot deviceRoot;
    public Path cdiDir;
    public Env env;
    public String bootId;
    public Duration heartbeat;
    public Duration tombstoneTtl;
    public List<String> helperCommand;
    public int workers;
    public Duration rescanPeriod;
    public boolean createControlNodes;
    public Duration healthCleanPeriod;
    public Supplier<NvmlLoad> nvml;
    public PodmanOptions podman;
    public Optional<Path> csiPluginDir;
    public UnaryOperator<ClaimRelease> releaseView;

    private Builder(NodeAgentConfig c) {
      api = c.api;
      nodeName = c.nodeName;
      stateDir = c.stateDir;
      deviceRoot = c.deviceRoot;
      cdiDir = c.cdiDir;
      env = c.env;
      bootId = c.bootId;
      heartbeat = c.heartbeat;
      tombstoneTtl = c.tombstoneTtl;
      helperCommand = c.helperCommand;
      workers = c.workers;
      rescanPeriod = c.rescanPeriod;
      createControlNodes = c.createControlNodes;
      healthCleanPeriod = c.healthCleanPeriod;
      nvml = c.nvml;
      podman = c.podman;
      csiPluginDir = c.csiPluginDir;
      releaseView = c.releaseView;
    }

    private NodeAgentConfig build() {
      return new NodeAgentConfig(
          api,
          nodeName,
          stateDir,
          deviceRoot,
          cdiDir,
          env,
          bootId,
          heartbeat,
          tombstoneTtl,
          helperCommand,
          workers,
          rescanPeriod,
          createControlNodes,
          healthCleanPeriod,
          nvml,
          podman,
          csiPluginDir,
          releaseView);
    }
  }
}
