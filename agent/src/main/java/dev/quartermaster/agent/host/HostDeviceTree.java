package dev.quartermaster.agent.host;

import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.GpuDiscovery;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.NodeExpectation;
import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.discovery.NodeVerifier;
import dev.quartermaster.agent.discovery.Numbering;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.health.HealthFileSource;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.mig.MigControl;
import dev.quartermaster.agent.mig.MigCrashPoint;
import dev.quartermaster.agent.mig.MigFiles;
import dev.quartermaster.agent.mig.MigInstanceSlices;
import dev.quartermaster.agent.mig.MigRefusedException;
import dev.quartermaster.agent.mig.NvmlMig;
import dev.quartermaster.agent.mig.SimulatedMig;
import dev.quartermaster.agent.nvml.NvmlDiscovery;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.agent.nvml.NvmlXidMonitor;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The devices under a device root: NVML when the root is the host's {@code /} and {@code
 * libnvidia-ml.so.1} loads (health from XID events), else the {@code /proc/driver/nvidia} + {@code
 * /dev} files under the root, which is how a simulated root is read (health from its {@code
 * health/} files, polled every {@code healthPeriod}).
 */
public final class HostDeviceTree implements DeviceTree {
  private static final Logger LOG = LoggerFactory.getLogger(HostDeviceTree.class);

  /** How long an NVML event wait blocks before it looks whether it was closed. */
  private static final Duration NVML_WAIT = Duration.ofSeconds(5);

  private final DeviceRoot root;
  private final Supplier<NvmlLoad> nvml;
  private final Duration healthPeriod;
  private final boolean useNvml;
  private final ControlNodeCheck check;
  private MigControl
      hostMig; // opened at the first ask; NVML stays initialized for the agent's life

  public HostDeviceTree(DeviceRoot root, Supplier<NvmlLoad> nvml, Duration healthPeriod) {
    this.root = root;
    this.nvml = nvml;
    this.healthPeriod = healthPeriod;
    this.useNvml = root.isHost() && nvmlLoads(nvml);
    this.check = new ControlNodeCheck(root.path());
  }

  /**
   * A simulated root's MIG is its files' ({@link MigFiles}), with "in use" judged by the processes
   * that really hold its nodes, and the crash point {@link MigCrashPoint#VARIABLE} names, if any;
   * the host's is NVML's ({@link NvmlMig}) where NVML loads and some GPU has MIG, opened once;
   * otherwise every GPU is whole.
   */
  @Override
  public MigControl mig() {
    if (root.isHost()) {
      return hostMig();
    }
    if (!Files.exists(root.path().resolve(Numbering.STAND_INS))) {
      return MigControl.NONE;
    }
    SimulatedDeviceRoot simulated;
    try {
      simulated = SimulatedDeviceRoot.open(root.path());
    } catch (IOException e) {
      LOG.warn(
          "{}: cannot open the simulated root, every GPU whole: {}", root.path(), e.getMessage());
      return MigControl.NONE;
    }
    var holders = ProcDeviceHolders.byPath();
    MigControl control =
        new SimulatedMig(
            new MigFiles(simulated),
            nodes -> {
              var byName = new LinkedHashMap<String, VerifiedNode>();
              nodes.forEach(n -> byName.put(n.path(), n));
              return !holders.scan(byName).free();
            });
    var crash =
        MigCrashPoint.named(Objects.requireNonNullElse(System.getenv(MigCrashPoint.VARIABLE), ""));
    if (crash.isPresent()) {
      LOG.warn(
          "{} is set: this agent halts at MIG crash point {}", MigCrashPoint.VARIABLE, crash.get());
      control = crash.get().around(control, () -> Runtime.getRuntime().halt(137));
    }
    return control;
  }

  private synchronized MigControl hostMig() {
    if (hostMig == null) {
      hostMig = useNvml ? openNvmlMig() : MigControl.NONE;
    }
    return hostMig;
  }

  private MigControl openNvmlMig() {
    NvmlMig opened;
    try {
      opened = NvmlMig.open(nvml, root.path());
    } catch (MigRefusedException e) {
      LOG.warn("no MIG through NVML, every GPU whole: {}", e.getMessage());
      return MigControl.NONE;
    }
    try {
      var capable = opened.capableGpus();
      if (!capable.isEmpty()) {
        LOG.info("MIG through NVML on GPUs {}", capable);
        return opened;
      }
    } catch (MigRefusedException e) {
      LOG.warn("cannot tell which GPUs have MIG, every GPU whole: {}", e.getMessage());
    }
    opened.close();
    return MigControl.NONE;
  }

  private static boolean nvmlLoads(Supplier<NvmlLoad> nvml) {
    return switch (nvml.get()) {
      case NvmlLoad.Loaded l -> {
        l.library().close(); // only asked whether it loads; discovery loads it per look
        yield true;
      }
      case NvmlLoad.Unavailable u -> false;
    };
  }

  @Override
  public GpuDiscovery discovery() {
    return useNvml ? new NvmlDiscovery(nvml, root.path()) : new ProcGpuDiscovery(root.path());
  }

  /**
   * {@code <root>/dev/nvidia-caps-imex-channels/channel<N>}, NVML or not: the driver has no call
   * for them.
   */
  @Override
  public ImexChannels channels() {
    return ImexChannels.scan(root.path());
  }

  @Override
  public ControlNodeStatus checkControlNodes() {
    return check.check();
  }

  @Override
  public Optional<NodeProblem> checkNode(VerifiedNode node) {
    return check(node);
  }

  /**
   * The node as it is now against what discovery saw. A regular file is accepted where discovery
   * accepted one (a simulated root built without mknod); a missing node or another number is not.
   */
  public static Optional<NodeProblem> check(VerifiedNode node) {
    return switch (NodeVerifier.verify(
        node.path(), node.hostPath(), new NodeExpectation(node.number(), true))) {
      case NodeVerifier.Verdict.Ok ok -> Optional.empty();
      case NodeVerifier.Verdict.Bad bad -> Optional.of(bad.problem());
    };
  }

  @Override
  public Optional<Path> watchDir() {
    return Optional.of(check.devDir());
  }

  @Override
  public AutoCloseable startHealth(Env env, List<DiscoveredGpu> gpus, HealthTracker tracker) {
    if (useNvml) {
      var byUuid = new LinkedHashMap<String, String>();
      gpus.forEach(g -> byUuid.put(g.uuid(), g.name()));
      return NvmlXidMonitor.start(
          env, nvml, byUuid, NVML_WAIT, tracker, new MigInstanceSlices(mig(), gpus));
    }
    var files =
        new HealthFileSource(
            env,
            root.path(),
            gpus.stream().map(DiscoveredGpu::name).toList(),
            healthPeriod,
            tracker);
    files.start();
    return files::stop;
  }
}
