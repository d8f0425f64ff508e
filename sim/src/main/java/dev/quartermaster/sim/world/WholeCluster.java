package dev.quartermaster.sim.world;

import dev.quartermaster.agent.NodeAgent;
import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.agent.runtime.PodmanOptions;
import dev.quartermaster.agent.volumes.VolumePaths;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.control.ControlPlane;
import dev.quartermaster.control.ControlPlaneOptions;
import dev.quartermaster.control.leader.LeaderConfig;
import dev.quartermaster.control.leader.WriteReadiness;
import dev.quartermaster.control.lifecycle.NodeLifecycle;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.sim.ProcessEnv;
import dev.quartermaster.sim.SimCluster;
import dev.quartermaster.sim.SimStore;
import dev.quartermaster.sim.WatchFaults;
import dev.quartermaster.sim.csi.SimCsiPlugin;
import dev.quartermaster.sim.csi.SimStorage;
import dev.quartermaster.sim.node.SimNodeHost;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The whole cluster in one deterministic world: the store and the API ({@link SimCluster}), two
 * control-plane replicas (leader-elected, as {@code qm server} runs them), and one real {@link
 * NodeAgent} per node on a {@link SimNodeHost} — all on one {@link DeterministicEnv}, so a seed
 * replays the run exactly. Each process reaches the API through its own {@link FlakyApi}, which
 * partitions and fails calls on demand; an agent can crash (its host keeps its processes, its
 * ledger file loses unsynced writes) and come back.
 */
public final class WholeCluster implements Observed {
  static final Duration HEARTBEAT = Duration.ofSeconds(10);
  static final Duration GRACE = NodeLifecycle.DEFAULT_GRACE;
  public static final String PLUGIN = "hostpath.csi.quartermaster.dev";

  /** One node: the machine, the agent running on it (if any), and its connection. */
  static final class NodeSlot {
    final String name;
    final SimNodeHost host;
    final FlakyApi api;

    /** The agent's process: its wall clock may step. */
    final ProcessEnv process;

    Optional<NodeAgent> agent = Optional.empty();
    SimCsiPlugin plugin;
    int boots;

    NodeSlot(String name, SimNodeHost host, FlakyApi api, ProcessEnv process) {
      this.name = name;
      this.host = host;
      this.api = api;
      this.process = process;
    }

    /** The running agent's ledger, if an agent runs. */
    Optional<LedgerState> ledger() {
      return agent.map(a -> a.preparer().durable().ledger().snapshot());
    }
  }

  /** One control-plane replica and its connection. */
  /**
   * A control-plane replica: whether it leads, and how it stops (a clean stop hands leadership
   * over).
   */
  interface Plane extends AutoCloseable {
    boolean isLeader();

    /** Whether its controllers can write; naive controllers, which always can, say so. */
    default WriteReadiness readiness() {
      return new WriteReadiness(isLeader(), true, "naive controllers, not leader-elected");
    }

    @Override
    void close();
  }

  /** A replica: its name, its controllers, its connection, and its process (to pause). */
  record Replica(String identity, Plane plane, FlakyApi api, ProcessEnv process) {}

  private final SimCluster cluster;
  private final RefusalLog refusals = new RefusalLog();
  private final StoreView view = new StoreView();
  private final Variant variant;
  private final Map<String, NodeSlot> nodes = new LinkedHashMap<>();
  private final List<Replica> replicas = new ArrayList<>();

  /**
   * The storage system behind the one CSI plugin every node runs (overlap-detecting, as the
   * hostpath plugin can be).
   */
  private final SimStorage storage = new SimStorage(PLUGIN, true);

  private int replicaCount;
  private final java.util.Set<String> migNodes = new java.util.TreeSet<>();
  private final java.util.Set<String> sharingNodes = new java.util.TreeSet<>();

  /**
   * @param variant the real system, or one with a naive piece plugged in
   */
  public WholeCluster(long seed, int nodeCount, int gpusPerNode, Variant variant) {
    this(seed, nodeCount, gpusPerNode, 0, variant);
  }

  /**
   * @param channelsPerNode IMEX channels on each node; with any, the {@code channel} device class
   *     exists, as under {@code qm up} (the seed campaigns run without, so their schedules stay as
   *     they were found)
   */
  public WholeCluster(
      long seed, int nodeCount, int gpusPerNode, int channelsPerNode, Variant variant) {
    this(seed, nodeCount, gpusPerNode, channelsPerNode, 0, variant);
  }

  /**
   * @param migNodes how many of the nodes, the last ones, have MIG-capable GPUs that an operator
   *     put in Dynamic MIG mode before their agents first start ({@link MigJobs} runs slices there)
   */
  public WholeCluster(
      long seed,
      int nodeCount,
      int gpusPerNode,
      int channelsPerNode,
      int migNodes,
      Variant variant) {
    this(seed, nodeCount, gpusPerNode, channelsPerNode, migNodes, 0, variant);
  }

  /**
   * @param shareNodes how many of the nodes, the very last ones, have GPUs an operator shared by
   *     turns before their agents first start ({@link TimeSliceJobs#startingSpec})
   */
  public WholeCluster(
      long seed,
      int nodeCount,
      int gpusPerNode,
      int channelsPerNode,
      int migNodes,
      int shareNodes,
      Variant variant) {
    this.variant = variant;
    this.cluster = new SimCluster(seed, watchFaults(seed), variant.storeRules());
    cluster.store().onCommit(view);
    cluster.deviceClass("gpu", "gpu");
    if (channelsPerNode > 0) {
      cluster.deviceClass(ComputeDomainSpec.CHANNEL_DEVICE_CLASS, DiscoveredChannel.CLASS);
    }
    for (int i = 1; i <= nodeCount; i++) {
      var name = "node-" + i;
      boolean shared = i > nodeCount - shareNodes;
      boolean mig = !shared && i > nodeCount - shareNodes - migNodes;
      if (mig) {
        migDynamic(name, gpusPerNode);
      }
      if (shared) {
        api()
            .create(
                new Node(ObjectMeta.named(name), TimeSliceJobs.startingSpec(), NodeStatus.EMPTY));
        sharingNodes.add(name);
      }
      addNode(name, gpusPerNode, channelsPerNode, mig, i <= 2);
    }
    startReplica();
    if (variant.controllers().isEmpty()) {
      startReplica();
    }
    variant
        .alongside()
        .ifPresent(helper -> helper.start(env(), new FlakyApi(api(), env(), "helper")));
  }

  /**
   * A machine with {@code gpus} GPUs joins the fleet now as {@code name} (not yet a node's name):
   * its agent starts and registers it, as when a node is added to a running cluster.
   */
  NodeSlot join(String name, int gpus) {
    if (nodes.containsKey(name)) {
      throw new IllegalArgumentException("node " + name + " is already in the fleet");
    }
    return addNode(name, gpus, 0, false, false);
  }

  private NodeSlot addNode(
      String name, int gpus, int channels, boolean mig, boolean csiController) {
    var slot =
        new NodeSlot(
            name,
            new SimNodeHost(env(), name, gpus, channels, mig),
            // Held to what its node's token allows (the server's own rule, judged on stored
            // objects).
            new FlakyApi(refusals.agentView(api(), name), env(), name),
            new ProcessEnv(env()));
    // The plugin runs beside the agent on every node, with the controller service on the first
    // two.
    slot.plugin = new SimCsiPlugin(env(), storage, name, csiController, Duration.ofMillis(200));
    slot.host.csiPlugins().put(endpoint(name), slot.plugin);
    slot.host.publicationsFrom(() -> storage.publishedOn(name));
    nodes.put(name, slot);
    startAgent(slot);
    return slot;
  }

  /** The operator's wish, before the node's agent first starts: every GPU of it in Dynamic MIG. */
  private void migDynamic(String node, int gpus) {
    var spec = NodeSpec.EMPTY;
    for (int g = 0; g < gpus; g++) {
      spec = spec.withMig("gpu-" + g, Optional.of(MigMode.Dynamic));
    }
    api().create(new Node(ObjectMeta.named(node), spec, NodeStatus.EMPTY));
    migNodes.add(node);
  }

  /** The nodes with time-sliced GPUs. */
  java.util.Set<String> shareNodes() {
    return java.util.Collections.unmodifiableSet(sharingNodes);
  }

  /** The nodes whose GPUs are in MIG mode. */
  java.util.Set<String> migNodes() {
    return java.util.Collections.unmodifiableSet(migNodes);
  }

  /**
   * Gives {@code node} {@code labels} (its topology), as an operator labels a node: on the Node its
   * agent registers, or on one made for it that the agent then reports into.
   */
  void labelNode(String node, Map<String, String> labels) {
    while (true) {
      try {
        var n = api().get(Kinds.NODE, node);
        if (n.isEmpty()) {
          api()
              .create(
                  new Node(
                      ObjectMeta.named(node).withLabels(labels), NodeSpec.EMPTY, NodeStatus.EMPTY));
        } else {
          api().update(n.get().withMetadata(n.get().metadata().withLabels(labels)));
        }
        return;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict) && !e.is(Reason.AlreadyExists)) {
          throw e;
        }
      }
    }
  }

  /**
   * Watch faults drawn from the seed: events late by up to 2 s, and up to one delivery in 50
   * dropped (a re-list).
   */
  static WatchFaults watchFaults(long seed) {
    var random = new java.util.SplittableRandom(seed);
    return new WatchFaults(Duration.ofMillis(random.nextLong(2001)), random.nextDouble(0.02), 0.5);
  }

  /**
   * Whether {@code target}, published on {@code node}, is of a task incarnation no claim of that
   * node on {@code v} names: a leftover only the node's agent can remove (VolumeReleaser's
   * orphans).
   */
  static boolean orphan(Volume v, String node, String target) {
    var uid =
        new VolumePaths(Path.of("/sim", node, "state")).taskUidOf(target, v.metadata().name());
    return uid.isPresent()
        && v.status().claims().stream()
            .noneMatch(c -> c.node().equals(node) && c.taskUid().equals(uid.get()));
  }

  /** Every leftover publication on the nodes whose agents run, as {@code node:target}. */
  List<String> orphanPublications() {
    var out = new ArrayList<String>();
    for (var v : view().volumes()) {
      if (v.status().externalId().isEmpty()) {
        continue;
      }
      for (var n : nodes()) {
        if (n.agent.isPresent()) {
          storage.publishedOn(n.name, v.status().externalId()).stream()
              .filter(t -> orphan(v, n.name, t))
              .forEach(t -> out.add(n.name + ":" + t));
        }
      }
    }
    return out;
  }

  /** Read-modify-write of a node's spec, as {@code qm node cordon|fence} does. */
  void nodeSpec(String node, UnaryOperator<NodeSpec> change) {
    var next =
        cluster.update(node, n -> new Node(n.metadata(), change.apply(n.spec()), n.status()));
    if (next.spec().fenced()) {
      refusals.fenced(node);
    }
  }

  /** Whether an operator fenced {@code node} (as the store says now). */
  boolean fenced(String node) {
    // The view, not a read: this is asked of every node at every check, and a read decodes.
    return view.node(node).map(n -> n.spec().fenced()).orElse(false);
  }

  /** An operator's scale of workload {@code name}'s first group. */
  void scale(String name, int replicas) {
    cluster.scale(name, replicas);
  }

  /** Every write of an agent that its node's access rule refused, as the rule said it. */
  List<String> refusals() {
    return refusals.refusals();
  }

  public DeterministicEnv env() {
    return cluster.env();
  }

  public ObjectRegistry api() {
    return cluster.api();
  }

  public SimStore store() {
    return cluster.store();
  }

  /** The store's true state of claims, tasks and workloads (no cache, no decoding per look). */
  @Override
  public StoreView view() {
    return view;
  }

  static String endpoint(String node) {
    return "unix:///sim/" + node + "/plugins/hostpath.sock";
  }

  public SimStorage storage() {
    return storage;
  }

  List<NodeSlot> nodes() {
    return List.copyOf(nodes.values());
  }

  NodeSlot node(String name) {
    return nodes.get(name);
  }

  List<Replica> replicas() {
    return List.copyOf(replicas);
  }

  void startAgent(NodeSlot slot) {
    startAgent(slot, variant.lostLedger());
  }

  /** Starts {@code slot}'s agent, which meets a lost ledger as {@code lostLedger} says. */
  void startAgent(NodeSlot slot, dev.quartermaster.agent.checkpoint.LostLedger lostLedger) {
    var config =
        new NodeAgentConfig(
            variant.agentView().apply(slot.api),
            slot.name,
            Path.of("/sim", slot.name, "state"),
            DeviceRoot.at(Path.of("/sim", slot.name)),
            Path.of("/sim", slot.name, "cdi"),
            slot.process,
            "boot-1",
            HEARTBEAT,
            ClaimLedger.DEFAULT_TOMBSTONE_TTL,
            List.of("imex-helper", "{domain}"),
            2,
            NodeAgentConfig.DEFAULT_RESCAN,
            false,
            NodeAgentConfig.DEFAULT_HEALTH_CLEAN_PERIOD,
            () -> new NvmlLoad.Unavailable("simulated node"),
            PodmanOptions.defaults());
    try {
      slot.agent =
          Optional.of(NodeAgent.start(config, variant.hostView().apply(slot.host), lostLedger));
      slot.boots++;
    } catch (IOException e) {
      throw new UncheckedIOException("agent of " + slot.name + " could not start", e);
    }
  }

  /** {@code kill -9} of the agent: no clean-up; unsynced ledger writes are lost; processes stay. */
  void crashAgent(NodeSlot slot) {
    slot.agent.ifPresent(
        a -> {
          try {
            a.halt();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
    slot.agent = Optional.empty();
    slot.host.crash();
    // A killed process is no longer stopped: what the pause held reaches the halted agent, as its
    // timers do.
    if (slot.process.isPaused()) {
      slot.process.resume();
    }
  }

  void startReplica() {
    var identity = "cp-" + (++replicaCount);
    var process = new ProcessEnv(env());
    var api = new FlakyApi(api(), process, identity);
    if (variant.controllers().isPresent()) {
      var stop = variant.controllers().get().start(process, api);
      replicas.add(
          new Replica(
              identity,
              new Plane() {
                @Override
                public boolean isLeader() {
                  return true;
                }

                @Override
                public void close() {
                  try {
                    stop.close();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                }
              },
              api,
              process));
      return;
    }
    var real =
        new ControlPlaneOptions(
            identity, LeaderConfig.DEFAULTS, WorkloadController.DEFAULT_EXPECTATION_BOUND, GRACE);
    ControlPlaneOptions options =
        variant
            .allocatorView()
            .map(real::withAllocatorView)
            .orElse(real)
            .withLeaderCallbacks(variant.leaderCallbacks());
    options = variant.planeOptions().apply(options);
    var plane =
        ControlPlane.start(
            variant.controlView().apply(api),
            new dev.quartermaster.store.StoreLeases(store()),
            process,
            options,
            (node, instance) -> nodes.get(node).plugin,
            variant.volumeCalls().apply(env()));
    replicas.add(
        new Replica(
            identity,
            new Plane() {
              @Override
              public boolean isLeader() {
                return plane.isLeader();
              }

              @Override
              public WriteReadiness readiness() {
                return plane.readiness();
              }

              @Override
              public void close() {
                plane.close();
              }
            },
            api,
            process));
  }

  /**
   * Stops the leading replica (another takes over) and starts a fresh one in its place; not with
   * naive controllers.
   */
  void failOverLeader() {
    if (variant.controllers().isPresent()) {
      return;
    }
    // A paused process cannot stop cleanly: only a running leader is failed over.
    var leader =
        replicas.stream().filter(r -> r.plane().isLeader() && !r.process().isPaused()).findFirst();
    leader.ifPresent(
        r -> {
          r.plane().close();
          replicas.remove(r);
          startReplica();
        });
  }

  /** Sets the failure rate of every connection (agents' and replicas'). */
  void failRate(double rate) {
    nodes.values().forEach(n -> n.api.failRate(rate));
    replicas.forEach(r -> r.api().failRate(rate));
  }
}
