package dev.quartermaster.sim.node;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.DiscoveryResult;
import dev.quartermaster.agent.discovery.GpuDiscovery;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.host.DeviceTree;
import dev.quartermaster.agent.mig.MigCapabilities;
import dev.quartermaster.agent.mig.MigControl;
import dev.quartermaster.agent.mig.MigCrashPoint;
import dev.quartermaster.agent.mig.MigMemory;
import dev.quartermaster.agent.mig.MigTable;
import dev.quartermaster.agent.mig.SimulatedMig;
import dev.quartermaster.api.device.mig.MigModels;
import dev.quartermaster.core.env.Env;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * A node's devices in memory: {@code gpus} GPUs with their device nodes, IMEX channels, the control
 * nodes, and per-GPU health. The simulation removes and restores nodes ({@link #remove}, {@link
 * #restore}) and makes GPUs unhealthy; the agent sees it the way it sees a real host: discovery
 * leaves out a GPU whose node is missing (naming it), the control-node check names what is missing,
 * and an unhealthy GPU reports an XID on every health poll. A MIG node's driver ({@link #mig()})
 * keeps its instances here, where the next agent finds them.
 */
public final class SimDeviceTree implements DeviceTree {
  private static final long NVIDIA_MAJOR = 195;
  private static final long UVM_MAJOR = 510;
  private static final long IMEX_MAJOR = 234;
  private static final Duration HEALTH_POLL = Duration.ofSeconds(2);

  private final String node;
  private final int gpus;
  private final int channels;
  private final Set<String> missing = new TreeSet<>();
  private final Set<String> unhealthy = new TreeSet<>();

  /** The simulated driver's MIG state, empty on a node without MIG; it outlives the agents. */
  private final Optional<MigMemory> migState;

  private Predicate<List<VerifiedNode>> held = nodes -> false;
  private Optional<Runnable> crashAfterCreate = Optional.empty();

  /**
   * @param channels how many IMEX channels ({@code channel-0..}) the node offers
   */
  public SimDeviceTree(String node, int gpus, int channels) {
    this(node, gpus, channels, false);
  }

  /**
   * @param mig whether the GPUs are MIG-capable H200s with a simulated driver that makes and
   *     destroys instances (else H100s that MIG never touches, as the seed campaigns were found)
   */
  public SimDeviceTree(String node, int gpus, int channels, boolean mig) {
    this.node = node;
    this.gpus = gpus;
    this.channels = channels;
    this.migState =
        mig ? Optional.of(new MigMemory(node, Path.of("/sim", node, "dev"))) : Optional.empty();
  }

  /** The MIG driver's state now (instances, modes), if the node has MIG. */
  public Optional<MigTable> migTable() {
    return migState.map(MigMemory::table);
  }

  /** Whether a live process holds any of these nodes open (the driver's "in use"). */
  public synchronized void heldBy(Predicate<List<VerifiedNode>> held) {
    this.held = held;
  }

  /**
   * The next instance the driver makes is followed by {@code crash} (a {@code kill -9} of the
   * agent, which must run after this call), and the agent's call fails as a dead process's would:
   * made, never recorded.
   */
  public synchronized void crashAfterNextCreate(Runnable crash) {
    crashAfterCreate = Optional.of(crash);
  }

  @Override
  public MigControl mig() {
    if (migState.isEmpty()) {
      return MigControl.NONE;
    }
    var driver = new SimulatedMig(migState.get(), nodes -> heldNow().test(nodes));
    return MigCrashPoint.CREATED.around(driver, this::afterCreate);
  }

  private synchronized Predicate<List<VerifiedNode>> heldNow() {
    return held;
  }

  private void afterCreate() {
    Optional<Runnable> crash;
    synchronized (this) {
      crash = crashAfterCreate;
      crashAfterCreate = Optional.empty();
    }
    if (crash.isPresent()) {
      crash.get().run();
      throw new IllegalStateException("agent of " + node + " killed right after a MIG create");
    }
  }

  @Override
  public synchronized ImexChannels channels() {
    if (channels == 0) {
      return ImexChannels.NONE;
    }
    var found = new ArrayList<DiscoveredChannel>();
    for (int i = 0; i < channels; i++) {
      var file = ImexChannels.fileName(i);
      found.add(
          new DiscoveredChannel(
              DiscoveredChannel.nameOf(i),
              i,
              new VerifiedNode(
                  ImexChannels.containerPath(i), hostPath(file), new DeviceNumber(IMEX_MAJOR, i))));
    }
    return new ImexChannels(found, List.of(), Optional.empty());
  }

  /** The device-node file names of this node: {@code nvidia<i>} and the control nodes. */
  public List<String> nodeNames() {
    var out = new ArrayList<String>();
    for (int i = 0; i < gpus; i++) {
      out.add("nvidia" + i);
    }
    ControlNode.requiredNodes().forEach(c -> out.add(c.fileName()));
    return out;
  }

  public synchronized void remove(String fileName) {
    missing.add(fileName);
  }

  public synchronized void restore(String fileName) {
    missing.remove(fileName);
  }

  public synchronized boolean present(String fileName) {
    return !missing.contains(fileName) && capabilityExists(fileName);
  }

  /** A MIG capability node exists while its instance does; any other name is not one. */
  private boolean capabilityExists(String fileName) {
    if (!fileName.startsWith(MigCapabilities.FILE_PREFIX)) {
      return true;
    }
    int minor = Integer.parseInt(fileName.substring(MigCapabilities.FILE_PREFIX.length()));
    return migState.stream()
        .flatMap(m -> m.table().instances().stream())
        .anyMatch(i -> i.giCapMinor() == minor || i.ciCapMinor() == minor);
  }

  public synchronized void setHealthy(String gpu, boolean healthy) {
    if (healthy) {
      unhealthy.remove(gpu);
    } else {
      unhealthy.add(gpu);
    }
  }

  private Path hostPath(String fileName) {
    return Path.of("/sim", node, "dev", fileName);
  }

  private DiscoveredGpu gpu(int i) {
    var file = "nvidia" + i;
    return new DiscoveredGpu(
        "gpu-" + i,
        i,
        node + "-gpu-" + i,
        migState.isPresent() ? MigModels.H200_NAME : "H100",
        OptionalLong.of((migState.isPresent() ? 141L : 80L) << 30),
        i,
        "0000:" + (10 + i) + ":00.0",
        new VerifiedNode("/dev/" + file, hostPath(file), new DeviceNumber(NVIDIA_MAJOR, i)));
  }

  @Override
  public GpuDiscovery discovery() {
    return () -> {
      synchronized (this) {
        var found = new ArrayList<DiscoveredGpu>();
        var problems = new ArrayList<String>();
        for (int i = 0; i < gpus; i++) {
          if (missing.contains("nvidia" + i)) {
            problems.add("gpu-" + i + ": missing " + hostPath("nvidia" + i));
          } else {
            found.add(gpu(i));
          }
        }
        return new DiscoveryResult.Found("simulated", found, problems);
      }
    };
  }

  @Override
  public synchronized ControlNodeStatus checkControlNodes() {
    var present = new ArrayList<VerifiedNode>();
    var problems = new ArrayList<NodeProblem>();
    for (var c : ControlNode.requiredNodes()) {
      var path = hostPath(c.fileName());
      if (missing.contains(c.fileName())) {
        problems.add(new NodeProblem(path, NodeProblem.Kind.Missing, "missing " + path));
      } else {
        long major = c == ControlNode.NVIDIACTL ? NVIDIA_MAJOR : UVM_MAJOR;
        long minor =
            switch (c) {
              case NVIDIACTL -> 255;
              case NVIDIA_UVM -> 0;
              default -> 1;
            };
        present.add(new VerifiedNode(c.containerPath(), path, new DeviceNumber(major, minor)));
      }
    }
    return problems.isEmpty()
        ? new ControlNodeStatus.Complete(present, List.of())
        : new ControlNodeStatus.Incomplete(problems, present);
  }

  @Override
  public synchronized Optional<NodeProblem> checkNode(VerifiedNode node) {
    var path = node.hostPath();
    return !present(path.getFileName().toString())
        ? Optional.of(new NodeProblem(path, NodeProblem.Kind.Missing, "missing " + path))
        : Optional.empty();
  }

  @Override
  public Optional<Path> watchDir() {
    return Optional.empty();
  }

  @Override
  public AutoCloseable startHealth(Env env, List<DiscoveredGpu> found, HealthTracker tracker) {
    tracker.monitoring(found.stream().map(DiscoveredGpu::name).toList());
    var poll = new HealthPoll(env, tracker);
    poll.run();
    return poll::stop;
  }

  /** Reports an XID for every unhealthy GPU every poll, as a fault that persists would. */
  private final class HealthPoll implements Runnable {
    private final Env env;
    private final HealthTracker tracker;
    private Env.Cancellable next = () -> false;
    private boolean stopped;

    HealthPoll(Env env, HealthTracker tracker) {
      this.env = env;
      this.tracker = tracker;
    }

    @Override
    public void run() {
      List<String> faulty;
      synchronized (SimDeviceTree.this) {
        faulty = List.copyOf(unhealthy);
      }
      synchronized (this) {
        if (stopped) {
          return;
        }
        next = env.schedule(HEALTH_POLL, this);
      }
      faulty.forEach(g -> tracker.xid(g, 79, "GPU has fallen off the bus (simulated)"));
    }

    synchronized void stop() {
      stopped = true;
      next.cancel();
    }
  }
}
