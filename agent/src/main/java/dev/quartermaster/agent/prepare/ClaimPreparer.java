package dev.quartermaster.agent.prepare;

import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.domaind.DaemonAnswer;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.host.DeviceHolders;
import dev.quartermaster.agent.host.HolderScan;
import dev.quartermaster.agent.host.HostDeviceTree;
import dev.quartermaster.agent.host.ProcDeviceHolders;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.agent.ledger.CompleteResult;
import dev.quartermaster.agent.ledger.NodeEffects;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.agent.ledger.PrepareResult;
import dev.quartermaster.agent.ledger.UnprepareResult;
import dev.quartermaster.agent.mig.LiveInstance;
import dev.quartermaster.agent.mig.MigControl;
import dev.quartermaster.agent.mig.MigRefusedException;
import dev.quartermaster.agent.mig.MigSlice;
import dev.quartermaster.agent.mig.NodeMig;
import dev.quartermaster.agent.mig.PreparedSlice;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepare and unprepare on this node: the ledger's decisions, made durable, followed by the
 * node-side work (CDI specs) and the derived side effects. The I/O shell around the pure ledger.
 *
 * <p>Prepare: ledger {@code prepare} → for a claim in a compute domain, persist {@code
 * PrepareStarted} → bring side effects in line (the claim's domain is joined and its helper runs
 * before anything else) → a claim in a domain waits, retryably and holding its devices, until the
 * domain's daemon here answers ready → write the CDI spec → ledger {@code complete} → persist →
 * report Prepared. If the claim was unprepared meanwhile, {@code complete} says so and the spec
 * just written is removed again.
 *
 * <p>Unprepare: ledger {@code unprepare} (tombstone) → persist → remove the CDI spec → side
 * effects. Persisting first means a crash can leave an orphan spec (removed at start-up), never a
 * ledger that says "free" while a spec still hands the device out.
 *
 * <p>Completeness (I3): a GPU claim is prepared only while every required control node is right on
 * the host <em>now</em>: {@code controlNodes} runs a fresh check before a new prepare (an
 * incomplete node set makes it wait, retryably, naming the path, with nothing reserved) and again
 * when the spec is written, and the spec lists the GPU's node and every control node. The GPU's own
 * node ({@code /dev/nvidia<minor>}) is checked at prepare time too: discovery sees it go only at
 * its next rescan, and a GPU that discovery has dropped since it was seen waits (naming the path)
 * rather than failing, so that it is prepared again once its node is back. When the node set
 * changes, {@link #rewriteSpecs()} rewrites the spec of every prepared claim. Spec writes and
 * removals are serialized, so a rewrite never brings back the spec of a claim just unprepared.
 *
 * <p>Nobody else still uses it (seed 1 on a real kubelet): an unprepare is not proof that no
 * process uses the device — the kubelet unprepares a force-deleted pod's claim while its container
 * may still run. So a new prepare first asks {@link DeviceHolders} which live processes hold the
 * claim's GPU and channel nodes open, and waits, retryably and reserving nothing, naming each one
 * (pid and command), until none does. Processes whose open files cannot be read are named in a
 * warning.
 *
 * <p>IMEX channels ({@code channel-<N>}) are found in the same inventory and prepared the same way:
 * their node ({@code /dev/nvidia-caps-imex-channels/channel<N>}) is checked at prepare time and
 * goes into the claim's channel spec with its number. A node without channels fails a channel claim
 * and says why (no {@code nvidia-caps-imex-channels} major, say).
 *
 * <p>Nothing is reported before the change is durable, so whatever a caller was told survives a
 * crash (I6). Safe to call concurrently, for different claims or the same one.
 */
public final class ClaimPreparer {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimPreparer.class);

  private final DurableLedger durable;
  private final ClaimSpecs specs;
  private final EffectsReconciler effects;
  private final Supplier<Inventory> inventory;
  private final Supplier<ControlNodeStatus> controlNodes;
  private final Function<VerifiedNode, Optional<NodeProblem>> nodeNow;
  private final DeviceHolders holders;

  /** The unreadable processes last warned of. */
  private volatile List<String> lastUnreadable = List.of();

  private final Object specLock = new Object();

  /**
   * The device node of every GPU and channel discovery or a prepare has seen, by name: what must be
   * there.
   */
  private final Map<String, VerifiedNode> gpuNodes = new ConcurrentHashMap<>();

  // Set by whoever runs the agent (qm up) after start; volatile, as prepares run on other threads.
  private volatile PrepareMetrics metrics = PrepareMetrics.NONE;

  // The node's MIG (none unless the agent says otherwise); set once at start, before any prepare.
  private volatile NodeMig mig = new NodeMig(MigControl.NONE);

  /**
   * @param inventory the GPUs found by the last discovery
   * @param controlNodes checks the host's control nodes now, on every call ({@code
   *     ControlNodeCheck::check})
   */
  public ClaimPreparer(
      DurableLedger durable,
      ClaimSpecs specs,
      EffectsReconciler effects,
      Supplier<Inventory> inventory,
      Supplier<ControlNodeStatus> controlNodes) {
    this(durable, specs, effects, inventory, controlNodes, HostDeviceTree::check);
  }

  /**
   * @param nodeNow checks a device node discovery saw, now ({@code DeviceTree::checkNode})
   */
  public ClaimPreparer(
      DurableLedger durable,
      ClaimSpecs specs,
      EffectsReconciler effects,
      Supplier<Inventory> inventory,
      Supplier<ControlNodeStatus> controlNodes,
      Function<VerifiedNode, Optional<NodeProblem>> nodeNow) {
    this(durable, specs, effects, inventory, controlNodes, nodeNow, ProcDeviceHolders.byPath());
  }

  /**
   * @param holders who holds a device open now; a new prepare waits while anyone does
   */
  public ClaimPreparer(
      DurableLedger durable,
      ClaimSpecs specs,
      EffectsReconciler effects,
      Supplier<Inventory> inventory,
      Supplier<ControlNodeStatus> controlNodes,
      Function<VerifiedNode, Optional<NodeProblem>> nodeNow,
      DeviceHolders holders) {
    this.holders = Objects.requireNonNull(holders, "holders");
    this.nodeNow = Objects.requireNonNull(nodeNow, "nodeNow");
    this.durable = Objects.requireNonNull(durable, "durable");
    this.specs = Objects.requireNonNull(specs, "specs");
    this.effects = Objects.requireNonNull(effects, "effects");
    this.inventory = Objects.requireNonNull(inventory, "inventory");
    this.controlNodes = Objects.requireNonNull(controlNodes, "controlNodes");
  }

  public DurableLedger durable() {
    return durable;
  }

  /**
   * Whether the ledger has an entry for a claim called {@code name} (any uid, any state): a look,
   * not a copy.
   */
  public boolean knowsName(String name) {
    return durable.ledger().holdsName(name);
  }

  /** Whether the ledger has an entry for claim {@code uid}, a tombstone included. */
  public boolean knows(String uid) {
    return durable.ledger().entry(uid).isPresent();
  }

  /** Whether claim {@code uid} holds its devices here (prepared, or its prepare begun). */
  public boolean holds(String uid) {
    return durable.ledger().entry(uid).filter(ClaimState::holdsDevices).isPresent();
  }

  /** The claims called {@code name} (any uid) that hold their devices here, in uid order. */
  public List<ClaimRef> heldNamed(String name) {
    return durable.ledger().entriesNamed(name).stream()
        .filter(ClaimState::holdsDevices)
        .map(ClaimState::claim)
        .toList();
  }

  /**
   * The CDI devices claim {@code uid} is prepared with here; empty unless its prepare completed.
   */
  public Optional<List<String>> preparedWith(String uid) {
    return durable
        .ledger()
        .entry(uid)
        .filter(ClaimState.PrepareCompleted.class::isInstance)
        .map(e -> ((ClaimState.PrepareCompleted) e).cdiDevices());
  }

  /** Prepares MIG slices through {@code mig} from now on (their instances are its to make). */
  public void useMig(NodeMig next) {
    this.mig = Objects.requireNonNull(next, "mig");
  }

  public NodeMig mig() {
    return mig;
  }

  /** Reports each prepare and unprepare to {@code sink} from now on. */
  public void observeWith(PrepareMetrics sink) {
    this.metrics = Objects.requireNonNull(sink, "sink");
  }

  /**
   * Prepares {@code request} as described on the class. Throws only if the checkpoint cannot be
   * written.
   */
  public PrepareOutcome prepare(PrepareRequest request) throws IOException {
    var span = metrics.begin(PrepareMetrics.Operation.PREPARE);
    var outcome = "error";
    try {
      var result = prepareNow(request);
      outcome =
          switch (result) {
            case PrepareOutcome.Prepared _ -> "prepared";
            case PrepareOutcome.Waiting _ -> "waiting";
            case PrepareOutcome.Refused _ -> "refused";
            case PrepareOutcome.Failed _ -> "failed";
          };
      return result;
    } finally {
      span.end(outcome);
    }
  }

  private PrepareOutcome prepareNow(PrepareRequest request) throws IOException {
    var claim = request.claim();
    // Checked before the ledger: a request for devices this node lacks must not reserve anything.
    var found = remember(inventory.get());
    var ledger = durable.ledger();
    boolean alreadyPrepared =
        ledger.entry(claim.uid()).filter(ClaimState.PrepareCompleted.class::isInstance).isPresent();
    var gpus = new ArrayList<DiscoveredGpu>();
    var channels = new ArrayList<DiscoveredChannel>();
    var slices = new ArrayList<MigSlice>();
    for (var device : request.devices()) {
      var slice = mig.slice(device, found.gpus());
      if (slice.isPresent()) {
        var problem =
            alreadyPrepared
                ? Optional.<NodeProblem>empty()
                : nodeNow.apply(slice.get().parent().node());
        if (problem.isPresent()) {
          return new PrepareOutcome.Waiting(
              "device node of " + device + ": " + problem.get().message());
        }
        slices.add(slice.get());
        continue;
      }
      var gpu = found.gpu(device).or(() -> replica(device, found));
      var channel = gpu.isPresent() ? Optional.<DiscoveredChannel>empty() : found.channel(device);
      var problem =
          alreadyPrepared
              ? Optional.<NodeProblem>empty()
              : Optional.ofNullable(gpuNodes.get(device)).flatMap(nodeNow);
      if (problem.isPresent()) {
        // Checked now, not at the last rescan: a GPU without its node fails every container given
        // it.
        return new PrepareOutcome.Waiting(
            "device node of " + device + ": " + problem.get().message());
      }
      if (channel.isPresent()) {
        channels.add(channel.get());
        continue;
      }
      if (gpu.isEmpty() && alreadyPrepared) {
        continue; // prepared while it was there: the ledger answers without it, and it stays held
        // (I2)
      }
      // Seen before, or the last discovery left something out (a missing node, say): it may be this
      // device, which may come back — an agent started while its node was away never saw it (seed
      // 2553).
      var leftOut = device.startsWith("channel-") ? found.channels().problems() : found.problems();
      if (gpu.isEmpty() && (gpuNodes.containsKey(device) || !leftOut.isEmpty())) {
        return new PrepareOutcome.Waiting(
            "device "
                + device
                + " was left out by the last discovery ("
                + String.join("; ", leftOut)
                + "); waiting for the next rescan");
      }
      if (gpu.isEmpty()) {
        return new PrepareOutcome.Failed(
            "device "
                + device
                + " is not on this node (found: "
                + found.gpus().stream().map(DiscoveredGpu::name).toList()
                + (found.problems().isEmpty()
                    ? ""
                    : "; left out: " + String.join("; ", found.problems()))
                + "; "
                + found.channels().summary()
                + ")");
      }
      gpus.add(gpu.get());
    }
    if (!alreadyPrepared && controlNodes.get() instanceof ControlNodeStatus.Incomplete incomplete) {
      // Before the ledger: a node that cannot give a complete device set reserves nothing.
      return new PrepareOutcome.Waiting(notReady(incomplete));
    }
    if (!alreadyPrepared) {
      // Before the ledger too: a device still open in some process reserves nothing for anyone.
      var stillOpen = stillOpen(claim, unshared(claim, gpus), channels);
      if (stillOpen.isPresent()) {
        return new PrepareOutcome.Waiting(stillOpen.get());
      }
    }
    var decision = ledger.prepare(request);
    switch (decision) {
      case PrepareResult.AlreadyPrepared done -> {
        durable.persist(); // another caller may have completed it and still be writing
        return new PrepareOutcome.Prepared(done.entry().cdiDevices());
      }
      case PrepareResult.Held held -> {
        return new PrepareOutcome.Waiting(held.reason());
      }
      case PrepareResult.Aborted aborted -> {
        return new PrepareOutcome.Refused(aborted.reason(), aborted.expiresAt());
      }
      case PrepareResult.Mismatch mismatch -> {
        return new PrepareOutcome.Failed(mismatch.reason());
      }
      case PrepareResult.Started _ -> {
        // fall through: do the work
      }
    }
    var domain = request.computeDomain();
    if (domain.isPresent()
        || !slices.isEmpty()
        || gpus.stream().anyMatch(g -> MpsShares.parse(g.name()).isPresent())) {
      // The entry calls for a side effect (the domain's membership and helper): durable before it
      // starts, so a restarted agent finds the entry that wanted it. A claim without a domain has
      // no
      // effect but its spec, which the completion's persist covers: a crash before it leaves an
      // orphan spec, removed at start-up, and nobody was told anything (one fsync per prepare, not
      // two).
      durable.persist();
    }
    var outcome = syncEffects();
    if (domain.isPresent() && !outcome.published().contains(domain.get())) {
      // The entry stays started (holding its devices and wanting its domain); a retry goes on from
      // here.
      return new PrepareOutcome.Waiting(
          "compute domain "
              + domain.get()
              + " is not joined yet: "
              + String.join("; ", outcome.errors()));
    }
    if (domain.isPresent()) {
      // The check NVIDIA's fix relies on: channels are no use until the domain's daemon here is
      // ready.
      var notReady =
          switch (effects.readiness(domain.get())) {
            case DaemonAnswer.Ready _ -> Optional.<String>empty();
            case DaemonAnswer.Starting st -> Optional.of("is starting (pid " + st.pid() + ")");
            case DaemonAnswer.Silent silent -> Optional.of("is not ready: " + silent.reason());
          };
      if (notReady.isPresent()) {
        return new PrepareOutcome.Waiting(
            "the daemon of compute domain " + domain.get() + " on this node " + notReady.get());
      }
    }
    var noDaemon =
        gpus.stream()
            .flatMap(g -> MpsShares.parse(g.name()).stream())
            .map(MpsShare::gpu)
            .filter(g -> !outcome.mpsRunning().contains(g))
            .findFirst();
    if (noDaemon.isPresent()) {
      // The entry stays started, holding its share and wanting the daemon; a retry goes on.
      return new PrepareOutcome.Waiting(
          "the MPS daemon of "
              + noDaemon.get()
              + " on this node is not running: "
              + String.join("; ", outcome.errors()));
    }
    var prepared = new ArrayList<PreparedSlice>();
    if (!slices.isEmpty()) {
      // The entry is durable (above): the instances it wants are made now, or were made before a
      // crash and are adopted; the reconcile at restart destroys any the ledger does not hold.
      var made = syncMig();
      for (var slice : slices) {
        var ready = preparedSlice(slice, made.errors());
        if (ready instanceof SliceReady.Missing missing) {
          return new PrepareOutcome.Waiting(missing.reason());
        }
        prepared.add(((SliceReady.Ready) ready).slice());
      }
    }
    List<String> names;
    synchronized (specLock) {
      // Checked again at the write: the spec must list the nodes as they are now.
      var status = controlNodes.get();
      if (!(status instanceof ControlNodeStatus.Complete complete)) {
        return new PrepareOutcome.Waiting(notReady((ControlNodeStatus.Incomplete) status));
      }
      try {
        names = specs.write(claim, gpus, channels, prepared, complete.nodes());
      } catch (IOException e) {
        return new PrepareOutcome.Waiting("writing the CDI spec failed: " + e.getMessage());
      }
    }
    var completed = ledger.complete(claim.uid(), names);
    switch (completed) {
      case CompleteResult.Completed _ -> {
        durable.persist();
        return new PrepareOutcome.Prepared(names);
      }
      case CompleteResult.Aborted a -> {
        removeSpec(claim.uid());
        syncEffects();
        return new PrepareOutcome.Refused(
            "claim " + claim + " was unprepared while its prepare was running",
            a.tombstone().expiresAt());
      }
      case CompleteResult.NotStarted _ -> {
        removeSpec(claim.uid());
        syncEffects();
        return new PrepareOutcome.Failed(
            "claim " + claim + " vanished from the ledger while its prepare was running");
      }
    }
  }

  /** A slice's instance and capability nodes, there now, or why not. */
  private sealed interface SliceReady {
    record Ready(PreparedSlice slice) implements SliceReady {}

    record Missing(String reason) implements SliceReady {}
  }

  private SliceReady preparedSlice(MigSlice slice, List<String> errors) {
    Optional<LiveInstance> instance;
    try {
      instance = mig.instance(slice);
    } catch (MigRefusedException e) {
      return new SliceReady.Missing("slice " + slice.name() + ": " + e.getMessage());
    }
    if (instance.isEmpty()) {
      return new SliceReady.Missing(
          "slice "
              + slice.name()
              + " has no MIG instance yet"
              + (errors.isEmpty() ? "" : " (" + String.join("; ", errors) + ")"));
    }
    var caps = mig.control().capabilityNodes(instance.get());
    for (var node : caps) {
      // The seed-2 incident one level down: a process on a slice needs its access files too.
      var problem = nodeNow.apply(node);
      if (problem.isPresent()) {
        return new SliceReady.Missing(
            "capability node of slice " + slice.name() + ": " + problem.get().message());
      }
    }
    return new SliceReady.Ready(new PreparedSlice(slice, instance.get(), caps));
  }

  /**
   * Brings the MIG instances to the slices the ledger holds (creates the missing, destroys the
   * rest): after a prepare is durable, after an unprepare, at start-up and on retries.
   */
  public NodeMig.Outcome syncMig() {
    var held = new java.util.TreeSet<String>();
    durable.ledger().snapshot().holding().forEach(e -> held.addAll(e.devices()));
    var outcome = mig.reconcile(held, inventory.get().gpus());
    if (!outcome.created().isEmpty() || !outcome.destroyed().isEmpty()) {
      LOG.info("MIG instances created {}, destroyed {}", outcome.created(), outcome.destroyed());
    }
    if (!outcome.errors().isEmpty()) {
      LOG.warn("MIG instances not in line with the ledger: {}", outcome.errors());
    }
    return outcome;
  }

  /** The devices held here, each with the claim holding it (for MIG mode changes). */
  public Map<String, String> heldDevices() {
    var out = new java.util.TreeMap<String, String>();
    durable
        .ledger()
        .snapshot()
        .holding()
        .forEach(e -> e.devices().forEach(d -> out.put(d, e.claim().name())));
    return out;
  }

  /**
   * A time-sliced replica or an MPS share of a GPU found: the GPU under the part's name (its node,
   * UUID and index are the GPU's: a client of either runs on the whole GPU), remembered so the held
   * GPUs' node check covers it.
   */
  private Optional<DiscoveredGpu> replica(String device, Inventory found) {
    var parent = sharedGpu(device);
    if (parent.isEmpty()) {
      return Optional.empty();
    }
    var gpu = found.gpu(parent.get());
    gpu.ifPresent(g -> gpuNodes.put(device, g.node()));
    return gpu.map(
        g ->
            new DiscoveredGpu(
                device,
                g.index(),
                g.uuid(),
                g.model(),
                g.memoryBytes(),
                g.minor(),
                g.pciBusId(),
                g.node()));
  }

  /**
   * The GPUs whose node must be closed by everyone before {@code claim} may have them: all but a
   * replica of a GPU another claim holds a replica of. Its clients share the GPU's node by design
   * (time-slicing isolates nothing), so their open files say nothing of an earlier claim's; the
   * first replica after a whole GPU's claim is checked like the GPU.
   */
  private List<DiscoveredGpu> unshared(ClaimRef claim, List<DiscoveredGpu> gpus) {
    var sharedNow = new java.util.HashSet<String>();
    durable.ledger().snapshot().holding().stream()
        .filter(e -> !e.claim().uid().equals(claim.uid()))
        .flatMap(e -> e.devices().stream())
        .forEach(d -> sharedGpu(d).ifPresent(sharedNow::add));
    return gpus.stream()
        .filter(g -> sharedGpu(g.name()).map(p -> !sharedNow.contains(p)).orElse(true))
        .toList();
  }

  /** The GPU a time-sliced replica or an MPS share is of; empty for any other device. */
  private static Optional<String> sharedGpu(String device) {
    return TimeSlices.parse(device)
        .map(TimeSlices.Replica::gpu)
        .or(() -> MpsShares.parse(device).map(MpsShare::gpu));
  }

  /** Why claim's devices cannot be given out yet: the live processes that still hold them. */
  private Optional<String> stillOpen(
      ClaimRef claim, List<DiscoveredGpu> gpus, List<DiscoveredChannel> channels) {
    var nodes = new LinkedHashMap<String, VerifiedNode>();
    gpus.forEach(g -> nodes.put(g.name(), g.node()));
    channels.forEach(c -> nodes.put(c.name(), c.node()));
    HolderScan scan = holders.scan(nodes);
    if (!scan.unreadable().isEmpty() && !scan.unreadable().equals(lastUnreadable)) {
      // Said once per change: a retrying prepare would repeat it every few hundred ms.
      lastUnreadable = scan.unreadable();
      LOG.warn(
          "prepare of claim {}: could not read the open files of {} processes, which may hold {}: {}",
          claim,
          scan.unreadable().size(),
          nodes.keySet(),
          scan.unreadable().stream().limit(10).toList());
    }
    if (scan.free()) {
      return Optional.empty();
    }
    var held = new ArrayList<String>();
    for (var h : scan.holders()) {
      held.add("device " + h.device() + ": " + h.describe());
    }
    return Optional.of(
        String.join("; ", held)
            + " (a process of an earlier claim may still use it; waiting until it closes)");
  }

  /**
   * Checks now the device node of every GPU the ledger holds for some claim: a problem for each one
   * that is missing or wrong, naming its path (what tasks using it must be told, I2).
   */
  public List<NodeProblem> checkHeldGpuNodes() {
    remember(inventory.get());
    var problems = new ArrayList<NodeProblem>();
    durable.ledger().snapshot().holding().stream()
        .flatMap(e -> e.devices().stream())
        .distinct()
        .sorted()
        .forEach(
            device ->
                Optional.ofNullable(gpuNodes.get(device))
                    .flatMap(nodeNow)
                    .ifPresent(problems::add));
    return problems;
  }

  private Inventory remember(Inventory found) {
    found.gpus().forEach(g -> gpuNodes.put(g.name(), g.node()));
    found.channels().channels().forEach(c -> gpuNodes.put(c.name(), c.node()));
    return found;
  }

  /** Unprepares {@code claim}; idempotent, needs nothing but the ledger. */
  public UnprepareOutcome unprepare(ClaimRef claim) throws IOException {
    var span = metrics.begin(PrepareMetrics.Operation.UNPREPARE);
    var outcome = "error";
    try {
      var result = unprepareNow(claim);
      outcome = "unprepared";
      return result;
    } finally {
      span.end(outcome);
    }
  }

  private UnprepareOutcome unprepareNow(ClaimRef claim) throws IOException {
    var uid = claim.uid();
    var result = durable.ledger().unprepare(claim);
    durable.persist(); // also when unchanged: a concurrent caller's tombstone may not be synced yet
    if (!(result instanceof UnprepareResult.AlreadyUnprepared)) {
      removeSpec(uid);
    }
    var outcome = syncEffects(); // destroys the claim's MIG instances too
    if (result instanceof UnprepareResult.Released r) {
      LOG.info(
          "unprepared claim {} ({} was {})",
          r.previous().claim(),
          r.previous().devices(),
          r.previous().stateName());
    }
    return new UnprepareOutcome(result, outcome.errors());
  }

  /**
   * Rewrites the spec of every prepared claim with the control nodes as they are now (their set or
   * numbers changed). Only when the set is complete: an incomplete one leaves the specs as they
   * are, so that a container started from them fails loudly on the missing node instead of silently
   * running without it. Returns what could not be rewritten.
   */
  public List<String> rewriteSpecs() {
    var errors = new ArrayList<String>();
    synchronized (specLock) {
      if (!(controlNodes.get() instanceof ControlNodeStatus.Complete complete)) {
        return errors;
      }
      var found = inventory.get();
      java.util.Set<String> written;
      try {
        written = specs.claimUids();
      } catch (IOException e) {
        return List.of("cannot list the CDI specs: " + e.getMessage());
      }
      for (var entry : durable.ledger().snapshot().holding()) {
        // A started prepare that has not written its spec yet writes it itself, under this lock.
        if (!(entry instanceof ClaimState.PrepareCompleted)
            && !written.contains(entry.claim().uid())) {
          continue;
        }
        var gpus =
            entry.devices().stream()
                .map(d -> found.gpu(d).or(() -> replica(d, found)))
                .flatMap(java.util.Optional::stream)
                .toList();
        var channels =
            entry.devices().stream()
                .map(found::channel)
                .flatMap(java.util.Optional::stream)
                .toList();
        var prepared = new ArrayList<PreparedSlice>();
        for (var device : entry.devices()) {
          mig.slice(device, found.gpus())
              .map(slice -> preparedSlice(slice, List.of()))
              .filter(SliceReady.Ready.class::isInstance)
              .ifPresent(r -> prepared.add(((SliceReady.Ready) r).slice()));
        }
        if (gpus.size() + channels.size() + prepared.size() != entry.devices().size()) {
          errors.add(
              "claim " + entry.claim() + ": devices " + entry.devices() + " are not all found now");
          continue;
        }
        try {
          specs.write(entry.claim(), gpus, channels, prepared, complete.nodes());
        } catch (IOException | RuntimeException e) {
          errors.add("claim " + entry.claim() + ": " + e.getMessage());
        }
      }
    }
    if (!errors.isEmpty()) {
      LOG.warn("CDI specs not rewritten: {}", errors);
    }
    return errors;
  }

  private void removeSpec(String uid) throws IOException {
    synchronized (specLock) {
      specs.remove(uid);
    }
  }

  /** {@code DevicesReady=False (ControlNodeMissing): missing /dev/nvidia-uvm}. */
  static String notReady(ControlNodeStatus.Incomplete status) {
    return "DevicesReady=False (" + status.reason() + "): " + status.message();
  }

  /** The compute domains the ledger wants this node in now. */
  public java.util.Set<String> wantedDomains() {
    return NodeEffects.of(durable.ledger().snapshot()).computeDomains();
  }

  /** Whether some entry holds an MPS share, so that its GPU's daemon must run. */
  public boolean wantsMpsDaemons() {
    return !NodeEffects.of(durable.ledger().snapshot()).mpsGpus().isEmpty();
  }

  /** Brings side effects in line with the ledger as it is when the reconciler runs. */
  public EffectsReconciler.Outcome syncEffects() {
    var effectsOutcome = effects.reconcile(() -> NodeEffects.of(durable.ledger().snapshot()));
    var migOutcome = syncMig();
    var outcome =
        migOutcome.errors().isEmpty()
            ? effectsOutcome
            : new EffectsReconciler.Outcome(
                effectsOutcome.started(),
                effectsOutcome.stopped(),
                effectsOutcome.published(),
                effectsOutcome.mpsRunning(),
                java.util.stream.Stream.concat(
                        effectsOutcome.errors().stream(), migOutcome.errors().stream())
                    .toList());
    if (!outcome.ok()) {
      LOG.warn("node side effects not in line with the ledger: {}", outcome.errors());
    }
    return outcome;
  }

  /**
   * Removes CDI specs of claims the ledger does not hold (left by a crash between persist and
   * removal).
   */
  public List<String> removeOrphanSpecs() throws IOException {
    var holding = durable.ledger().snapshot().holding().stream().map(c -> c.claim().uid()).toList();
    var removed = new ArrayList<String>();
    for (var uid : specs.claimUids()) {
      if (!holding.contains(uid)) {
        removeSpec(uid);
        removed.add(uid);
      }
    }
    if (!removed.isEmpty()) {
      LOG.info("removed CDI specs of claims the ledger does not hold: {}", removed);
    }
    return removed;
  }
}
