package dev.quartermaster.agent;

import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.LostLedger;
import dev.quartermaster.agent.controlnodes.ControlNodeCreator;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.controlnodes.ControlNodeWatcher;
import dev.quartermaster.agent.devices.NodeDevices;
import dev.quartermaster.agent.domaind.DaemonWatch;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.health.HealthPolicy;
import dev.quartermaster.agent.host.NodeHost;
import dev.quartermaster.agent.host.OsNodeHost;
import dev.quartermaster.agent.node.ClaimSync;
import dev.quartermaster.agent.node.DevicesReady;
import dev.quartermaster.agent.node.NodeStatusWriter;
import dev.quartermaster.agent.node.SlicePublisher;
import dev.quartermaster.agent.plugins.PluginProber;
import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.agent.sync.AgentContext;
import dev.quartermaster.agent.tasks.ClaimUse;
import dev.quartermaster.agent.tasks.ReportedDomainGate;
import dev.quartermaster.agent.tasks.TaskHosting;
import dev.quartermaster.agent.tasks.TaskSync;
import dev.quartermaster.agent.tasks.TaskViews;
import dev.quartermaster.agent.volumes.NodeCalls;
import dev.quartermaster.agent.volumes.NodeVolumes;
import dev.quartermaster.agent.volumes.VolumeMounts;
import dev.quartermaster.agent.volumes.VolumePaths;
import dev.quartermaster.agent.volumes.VolumeReleaser;
import dev.quartermaster.agent.volumes.VolumeViews;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiListerWatcher;
import dev.quartermaster.api.client.NodeAudience;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.event.EventLog;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.event.EventType;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.DomainDaemon;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.core.env.Env.Cancellable;
import dev.quartermaster.core.env.SerialExecutor;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.informer.FilteredListerWatcher;
import dev.quartermaster.core.informer.Informer;
import dev.quartermaster.core.queue.ExponentialBackoff;
import dev.quartermaster.core.queue.Result;
import dev.quartermaster.core.queue.WorkQueue;
import dev.quartermaster.core.queue.Workers;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.csi.plugin.CsiPlugin;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent as a library ({@code qm agent} and {@code qm up} wire it; the simulation runs it
 * on a simulated {@link NodeHost}, in virtual time): takes the state directory's lock, loads the
 * ledger (refusing a corrupt one), cleans up after a crash, discovers the GPUs and watches their
 * health ({@link NodeDevices}), watches the control nodes ({@link ControlNodeWatcher}: file watch
 * plus periodic rescan) into the Node's {@code DevicesReady} condition, registers its Node and
 * heartbeats into its status (status writes only: the Node's spec and labels are the operator's),
 * publishes its DeviceSlice, prepares the ResourceClaims allocated to it ({@link ClaimSync}) and
 * runs the Tasks scheduled to it ({@link TaskSync}; output in {@code <state>/tasks/<task>.log}),
 * each through an informer and a work queue. It probes the node's CSI plugins ({@link
 * PluginProber}) into {@code Node.status.plugins}, publishes a task's volumes before the task
 * starts ({@link VolumeMounts}) and releases the volume claims of task incarnations that are over
 * ({@link VolumeReleaser}, through a third queue, by volume name).
 *
 * <p>Start-up order matters: the task processes an earlier agent left are stopped first ({@link
 * TaskSync#stopLeftovers}); side effects are reconciled from the loaded ledger before any claim is
 * looked at, so a restart never drops a domain that a prepared claim needs; and nothing is
 * reconciled before its informer's first list, so an empty cache is never mistaken for "all
 * deleted". When the control nodes change, every prepared claim's CDI spec is rewritten and the
 * claims that wait are retried.
 */
public final class NodeAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);
  public static final String AGENT_VERSION = "0.1.0";
  private static final String BY_VOLUME = "volume";
  private static final String BY_CLAIM = "claim";

  private final NodeAgentConfig config;
  private final NodeHost host;

  /** How often the compute domain daemons are checked while the node is in a domain. */
  private final DaemonWatch daemonWatch;

  private final NodeHost.StateLock lock;
  private final NodeDevices devices;
  private final AtomicReference<ControlNodeStatus> controlNodes;
  private final ClaimPreparer preparer;

  /** This agent's events, written as {@code agent/<node>} (the only source its token may write). */
  private final EventRecorder recorder;

  private final NodeStatusWriter status;
  private final SlicePublisher slice;
  private final SerialExecutor deviceEvents;
  private final java.util.concurrent.locks.ReentrantLock deviceWork =
      new java.util.concurrent.locks.ReentrantLock();
  private final WorkQueue<String> claimQueue;
  private final WorkQueue<String> taskQueue;
  private final WorkQueue<String> volumeQueue;
  private final Informer<ResourceClaim> claims;
  private final Informer<Task> tasks;
  private final Informer<Volume> volumes;
  private final PluginProber plugins;
  private final VolumeReleaser releaser;
  private final ClaimSync claimSync;
  private final TaskSync taskSync;
  private Workers<String> claimWorkers;
  private Workers<String> taskWorkers;
  private Workers<String> volumeWorkers;
  private ControlNodeWatcher watcher;
  private volatile Cancellable heartbeat = () -> false;

  /**
   * Set once construction is over: device events that come earlier are covered by begin's own
   * publish.
   */
  private volatile boolean begun;

  private volatile boolean closed;

  /** Where this node serves task output, once published. */
  private volatile Optional<dev.quartermaster.api.node.LogEndpoint> logs = Optional.empty();

  /** The MIG modes of this node's GPUs, set to the operator's wish and reported. */
  private final MigModePass migModes;

  /** The time-sliced GPUs' waits as last reported (an event only when one begins). */
  private volatile java.util.Set<String> sharingWaits = java.util.Set.of();

  private NodeAgent(
      NodeAgentConfig config, NodeHost host, NodeHost.StateLock lock, DurableLedger durable) {
    this.config = config;
    this.host = host;
    this.lock = lock;
    var env = config.env();
    var tree = host.devices();
    this.deviceEvents = new SerialExecutor(env);
    this.recorder =
        new EventLog(config.api(), env::now, env::schedule).recorder("agent/" + config.nodeName());
    this.status = new NodeStatusWriter(config.api(), config.nodeName());
    this.slice = new SlicePublisher(config.api(), config.nodeName());
    this.devices =
        NodeDevices.start(
            env,
            tree,
            HealthPolicy.defaults(config.healthCleanPeriod()),
            () -> deviceEvents.submit(() -> whileOpen(this::publishSlice)));
    this.controlNodes = new AtomicReference<>(tree.checkControlNodes());
    var mig = new dev.quartermaster.agent.mig.NodeMig(tree.mig());
    this.preparer =
        new ClaimPreparer(
            durable,
            host.claimSpecs(),
            new EffectsReconciler(host.helpers(), status, host.mpsDaemons()),
            devices::inventory,
            tree::checkControlNodes,
            tree::checkNode,
            host.deviceHolders());
    preparer.useMig(mig);
    devices.useMig(mig);
    this.migModes = new MigModePass(config, preparer, devices, recorder, status);
    var backoff = new ExponentialBackoff<String>(Duration.ofMillis(100), Duration.ofSeconds(10));
    this.claimQueue = new WorkQueue<>(env, backoff);
    this.taskQueue =
        new WorkQueue<>(
            env, new ExponentialBackoff<>(Duration.ofMillis(100), Duration.ofSeconds(10)));
    // The server tells an agent of its node's claims and tasks (WatchScope.Node: each write wakes
    // the
    // agents it concerns, not all of them); its caches and handlers keep only those, by the agent's
    // own rule, since a scope may tell more (a replay, a server that does not route) and the rule
    // also keeps what this agent holds. A list is the whole cluster's, filtered here the same way.
    var scope = WatchScope.node(config.nodeName());
    this.claims =
        Informer.builder(
                env,
                new FilteredListerWatcher<>(
                    new ApiListerWatcher<>(config.api(), Kinds.RESOURCE_CLAIM, scope),
                    this::keepsClaim,
                    NodeAgent::nameOf),
                NodeAgent::nameOf,
                NodeAgent::revisionOf)
            .identity(o -> o.metadata().uid())
            .build();
    // A task deleted before it was scheduled here may still leave its claim prepared here: kept
    // too.
    this.tasks =
        Informer.builder(
                env,
                new FilteredListerWatcher<>(
                    new ApiListerWatcher<>(config.api(), Kinds.TASK, scope),
                    this::keepsTask,
                    NodeAgent::nameOf),
                NodeAgent::nameOf,
                NodeAgent::revisionOf)
            .identity(o -> o.metadata().uid())
            .index(BY_VOLUME, t -> t.spec().volumes().stream().map(VolumeUse::name).toList())
            .index(BY_CLAIM, t -> t.spec().claims())
            .build();
    this.volumes =
        Informer.builder(
                env,
                new ApiListerWatcher<>(config.api(), Kinds.VOLUME),
                NodeAgent::nameOf,
                NodeAgent::revisionOf)
            .identity(o -> o.metadata().uid())
            .build();
    this.volumeQueue =
        new WorkQueue<>(
            env, new ExponentialBackoff<>(Duration.ofMillis(100), Duration.ofSeconds(10)));
    this.plugins =
        new PluginProber(
            env,
            config.nodeName(),
            host.csiPlugins(),
            PluginProber.DEFAULT_PERIOD,
            PluginProber.DEFAULT_CALL_TIMEOUT,
            list -> deviceEvents.submit(() -> whileOpen(this::pluginsChanged)));
    var nodeCalls =
        new NodeCalls(new VolumePaths(config.stateDir()), new KeyedSerializer<>(config.env()));
    var mounts =
        new VolumeMounts(
            config.nodeName(),
            name -> volumes.cache().get(name),
            plugins,
            nodeCalls,
            taskQueue::add,
            volumeQueue::add);
    var agent = new AgentContext(config.api(), config.nodeName(), env, recorder);
    // Which claims the task processes here use: the task sync records them, the claim sync and
    // releaser ask.
    var claimUse =
        new ClaimUse(config.nodeName(), name -> tasks.cache().get(name), claimQueue::add);
    var views =
        TaskViews.of(
            name -> tasks.hasSynced() ? tasks.cache().get(name) : Optional.empty(),
            name -> claims.cache().get(name),
            preparer::preparedWith);
    this.taskSync =
        new TaskSync(
            agent,
            views,
            new TaskHosting(
                host.tasks(),
                config::taskLog,
                mounts,
                new ReportedDomainGate(config.api(), config.nodeName(), this::reportedDaemons)),
            claimUse,
            taskQueue::add,
            config.rescanPeriod());
    this.releaser =
        new VolumeReleaser(
            agent,
            new VolumeViews(
                name -> volumes.cache().get(name),
                name -> tasks.cache().get(name),
                claimUse::mayRun),
            new NodeVolumes(plugins, nodeCalls, mounts, host.publications()),
            volumeQueue::add,
            config.rescanPeriod());
    this.claimSync =
        new ClaimSync(
            agent,
            preparer,
            name -> claims.hasSynced() ? claims.cache().get(name) : Optional.empty(),
            claimQueue::add,
            config.releaseView().apply(claimUse));
    // Running tasks of a domain say whether its daemon runs here; prepares waiting for it to be
    // ready go on.
    this.daemonWatch =
        new DaemonWatch(
            config.env(),
            config.nodeName(),
            preparer,
            host.helpers(),
            daemons -> status.update(s -> s.withDomainDaemons(daemons)),
            () -> {
              taskSync.daemonsChanged();
              claimSync.wakeWaiters();
            });
  }

  /**
   * Starts an agent on this machine; throws if the state directory is locked or the checkpoint is
   * corrupt.
   */
  public static NodeAgent start(NodeAgentConfig config) throws IOException {
    if (config.createControlNodes()) {
      var created = new ControlNodeCreator(config.deviceRoot().path()).createMissing();
      LOG.info("control nodes created: {}; not created: {}", created.created(), created.failures());
    }
    return start(config, new OsNodeHost(config));
  }

  /**
   * Starts an agent on this machine whose CSI plugins (in {@link NodeAgentConfig#csiPluginDir}) are
   * reached through {@code csiClient} (the command line passes the gRPC client's {@code open}).
   */
  public static NodeAgent start(NodeAgentConfig config, Function<String, CsiPlugin> csiClient)
      throws IOException {
    return start(config, csiClient, LostLedger.REFUSE);
  }

  /**
   * As {@link #start(NodeAgentConfig, Function)}; {@code lostLedger} says whether to start when the
   * cluster believes claims prepared here that the ledger lost ({@code --accept-lost-ledger}).
   */
  public static NodeAgent start(
      NodeAgentConfig config, Function<String, CsiPlugin> csiClient, LostLedger lostLedger)
      throws IOException {
    if (config.createControlNodes()) {
      var created = new ControlNodeCreator(config.deviceRoot().path()).createMissing();
      LOG.info("control nodes created: {}; not created: {}", created.created(), created.failures());
    }
    return start(config, new OsNodeHost(config, csiClient), lostLedger);
  }

  /**
   * Starts an agent on {@code host} (its I/O: files, devices, processes); {@code config}'s paths
   * are used only by the host and for naming task logs.
   */
  public static NodeAgent start(NodeAgentConfig config, NodeHost host) throws IOException {
    return start(config, host, LostLedger.REFUSE);
  }

  /**
   * As {@link #start(NodeAgentConfig, NodeHost)}. Before anything is prepared, the ledger is
   * checked against the claims the API server says are prepared on this node ({@link
   * LedgerCrossCheck}): one the ledger lost stops the start ({@link
   * dev.quartermaster.agent.checkpoint.LostLedgerException}, naming them) unless {@code lostLedger}
   * accepts it; a server that cannot be asked stops it too.
   */
  public static NodeAgent start(NodeAgentConfig config, NodeHost host, LostLedger lostLedger)
      throws IOException {
    var lock = host.lockState();
    NodeAgent agent = null;
    try {
      var opened =
          DurableLedger.open(
              host.ledgerFile(), config.bootId(), config.env(), config.tombstoneTtl());
      LedgerCrossCheck.check(
          config.api(),
          config.nodeName(),
          "the ledger in " + config.stateDir(),
          opened.ledger().ledger().snapshot(),
          opened.droppedByReboot(),
          lostLedger);
      agent = new NodeAgent(config, host, lock, opened.ledger());
      agent.begin();
      return agent;
    } catch (IOException | RuntimeException e) {
      if (agent != null) {
        agent.close();
      } else {
        lock.close();
      }
      throw e;
    }
  }

  /** Whether this node's claim cache keeps {@code c} (see {@link FilteredListerWatcher}). */
  private boolean keepsClaim(ResourceClaim c) {
    return claimSync.concerns(c);
  }

  /**
   * Whether this node's task cache keeps {@code t}: what the server routes to this node (a task
   * being deleted goes to every node, see {@link NodeAudience}), or a task this agent runs.
   */
  private boolean keepsTask(Task t) {
    return NodeAudience.of(t).includes(config.nodeName()) || taskSync.concerns(t);
  }

  private static String nameOf(ApiObject o) {
    return o.metadata().name();
  }

  private static long revisionOf(ApiObject o) {
    return o.metadata().revision();
  }

  private void begin() throws IOException {
    taskSync
        .stopLeftovers(); // before any claim is prepared again: no process nobody follows keeps a
    // GPU
    begun = true;
    preparer.removeOrphanSpecs();
    var node = status.update(this::readyStatus);
    var effects =
        preparer.syncEffects(); // before any claim: what the ledger needs is in place again
    if (!effects.ok()) {
      config.env().schedule(Duration.ofSeconds(1), this::retryEffects);
    }
    publishSlice();
    claims.addHandler(
        EventHandler.onAnyChange(
            c -> {
              if (claimSync.concerns(c)) {
                claimQueue.add(c.metadata().name());
              }
              // A claim prepared (or not) here may be what one of our tasks waits for: its owner's,
              // or a
              // task made by hand that names a claim made by hand (it waited a whole recheck
              // period).
              // Only a task of this node: a claim kept here may be another node's task's. A task
              // pinned here
              // that the cache does not show pinned yet is enqueued by its own update.
              c.metadata()
                  .owner()
                  .filter(o -> o.kind().equals(Kinds.TASK.name()))
                  .filter(o -> tasks.cache().get(o.name()).filter(taskSync::concerns).isPresent())
                  .ifPresent(o -> taskQueue.add(o.name()));
              if (c.metadata().owner().isEmpty()) {
                tasks.cache().byIndex(BY_CLAIM, c.metadata().name()).stream()
                    .filter(taskSync::concerns)
                    .forEach(t -> taskQueue.add(t.metadata().name()));
              }
            }));
    tasks.addHandler(
        EventHandler.onAnyChange(
            t -> {
              if (taskSync.concerns(t)) {
                taskQueue.add(t.metadata().name());
              }
              // A claim is prepared where it is allocated, also for a task never scheduled here
              // (deleted
              // before it was): that task's deletion is what lets the claim go, so look at its
              // claims.
              if (t.metadata().isDeleting()) {
                t.spec().claims().forEach(claimQueue::add);
              }
              // A task that ended or went away may leave volume claims on this node to release.
              t.spec().volumes().forEach(v -> volumeQueue.add(v.name()));
            }));
    volumes.addHandler(
        EventHandler.onAnyChange(
            v -> {
              if (releaser.concerns(v)) {
                volumeQueue.add(v.metadata().name());
              }
              // A claim granted or attached, or the volume created: its tasks here look again.
              tasks.cache().byIndex(BY_VOLUME, v.metadata().name()).stream()
                  .filter(taskSync::concerns)
                  .forEach(t -> taskQueue.add(t.metadata().name()));
            }));
    // Once the cache holds everything as of our registration, look at every claim the ledger knows,
    // including those deleted while the agent was down.
    claims.whenCaughtUp(
        node.metadata().revision(),
        () ->
            preparer
                .durable()
                .ledger()
                .snapshot()
                .claims()
                .values()
                .forEach(c -> claimQueue.add(c.claim().name())));
    claims.start();
    tasks.start();
    volumes.start();
    plugins.start();
    claimWorkers =
        Workers.start(
            config.env(),
            claimQueue,
            config.workers(),
            name ->
                claims.hasSynced()
                    ? claimSync.sync(name)
                    : Result.requeueAfter(Duration.ofMillis(50)));
    taskWorkers =
        Workers.start(
            config.env(),
            taskQueue,
            config.workers(),
            name ->
                tasks.hasSynced() && claims.hasSynced() && volumes.hasSynced()
                    ? taskSync.sync(name)
                    : Result.requeueAfter(Duration.ofMillis(50)));
    volumeWorkers =
        Workers.start(
            config.env(),
            volumeQueue,
            config.workers(),
            name ->
                tasks.hasSynced() && volumes.hasSynced()
                    ? releaser.sync(name)
                    : Result.requeueAfter(Duration.ofMillis(50)));
    watcher =
        ControlNodeWatcher.start(
            config.env(),
            host.devices()::checkControlNodes,
            host.devices().watchDir(),
            config.rescanPeriod(),
            s -> deviceEvents.submit(() -> whileOpen(() -> controlNodesChanged(s))));
    heartbeat = config.env().schedule(config.heartbeat(), this::beat);
    daemonWatch.start();
    LOG.info(
        "agent for node {} started: state {}, CDI {}, {} GPUs ({}), control nodes {}",
        config.nodeName(),
        config.stateDir(),
        config.cdiDir(),
        devices.inventory().gpus().size(),
        devices.inventory().source(),
        controlNodes.get().ready() ? "complete" : controlNodes.get().message());
  }

  /** On the device-event executor, in order: report, rewrite specs, retry waiting claims. */
  private void controlNodesChanged(ControlNodeStatus next) {
    if (closed) {
      return;
    }
    var was = controlNodes.getAndSet(next);
    LOG.info(
        "node {}: control nodes {}", config.nodeName(), next.ready() ? "complete" : next.message());
    if (was.ready() != next.ready() || !was.message().equals(next.message())) {
      var involved = new InvolvedObject(Kinds.NODE.name(), config.nodeName());
      if (next.ready()) {
        recorder.record(
            involved, EventType.Normal, "DevicesReady", "every control node is present again");
      } else {
        recorder.record(involved, EventType.Warning, "DevicesNotReady", next.message());
      }
    }
    try {
      devices.rescan();
      status.update(this::readyStatus);
    } catch (RuntimeException e) {
      LOG.warn(
          "node {}: reporting DevicesReady failed; the heartbeat reports it again",
          config.nodeName(),
          e);
    }
    if (next.ready()) {
      preparer.rewriteSpecs();
    }
    claimSync.wakeWaiters();
    checkTaskDevices();
  }

  /**
   * Tells the task sync which device nodes are missing or wrong now, for its running tasks (I2).
   */
  private synchronized void
      checkTaskDevices() { // check and tell as one step: a late stale result must not win
    var problems = new java.util.ArrayList<dev.quartermaster.agent.discovery.NodeProblem>();
    if (controlNodes.get() instanceof ControlNodeStatus.Incomplete incomplete) {
      problems.addAll(incomplete.problems());
    }
    problems.addAll(preparer.checkHeldGpuNodes());
    taskSync.deviceNodesChanged(problems);
  }

  private NodeStatus readyStatus(NodeStatus s) {
    var now = config.env().now();
    var conditions =
        Condition.set(
            s.conditions(),
            new Condition(
                NodeConditions.AGENT_READY,
                Condition.Status.True,
                "Heartbeat",
                "agent is running",
                Optional.empty()),
            now);
    conditions =
        Condition.set(conditions, DevicesReady.of(controlNodes.get(), devices.inventory()), now);
    var mig = migModes.condition();
    if (mig.isPresent()) {
      conditions = Condition.set(conditions, mig.get(), now);
    }
    return new NodeStatus(
        conditions,
        Optional.of(now),
        config.bootId(),
        AGENT_VERSION,
        s.computeDomains(),
        plugins.instances(),
        s.domainDaemons(),
        logs);
  }

  /**
   * Publishes where this node serves its tasks' output (its Node's {@code status.logs}); until
   * then, and after a restart until it is published again, the Node says none.
   */
  public void publishLogs(dev.quartermaster.api.node.LogEndpoint endpoint) {
    logs = Optional.of(endpoint);
    status.update(s -> s.withLogs(logs));
  }

  /** The tasks whose processes this agent started and follows, by name. */
  public List<String> runningTasks() {
    return taskSync.running();
  }

  /** Whether {@code task}'s process was started here and has not been reported ended. */
  public boolean runsTask(String task) {
    return taskSync.runs(task);
  }

  private List<DomainDaemon> reportedDaemons() {
    return daemonWatch.reported();
  }

  private void beat() {
    if (closed) {
      return;
    }
    try {
      devices.rescan();
      status.update(this::readyStatus);
      publishSlice();
    } catch (RuntimeException e) {
      LOG.warn(
          "heartbeat of node {} failed; trying again in {}",
          config.nodeName(),
          config.heartbeat(),
          e);
    }
    if (!closed) {
      heartbeat = config.env().schedule(config.heartbeat(), this::beat);
    }
  }

  /**
   * On the device-event executor: the plugins as last probed, into the Node's status; the tasks
   * that wait for a volume and the volumes with claims here look again (a plugin came or went).
   */
  private void pluginsChanged() {
    if (!begun || closed) {
      return;
    }
    try {
      status.update(s -> s.withPlugins(plugins.instances()));
    } catch (RuntimeException e) {
      LOG.warn(
          "node {}: reporting the CSI plugins failed; the heartbeat reports them again",
          config.nodeName(),
          e);
    }
    tasks.cache().list().stream()
        .filter(t -> !t.spec().volumes().isEmpty() && taskSync.concerns(t))
        .forEach(t -> taskQueue.add(t.metadata().name()));
    volumes.cache().list().stream()
        .filter(releaser::concerns)
        .forEach(v -> volumeQueue.add(v.metadata().name()));
  }

  /** The node's CSI plugins as last probed (for tests and {@code qm up}). */
  public PluginProber plugins() {
    return plugins;
  }

  private void retryEffects() {
    if (!closed && !preparer.syncEffects().ok()) {
      config.env().schedule(Duration.ofSeconds(5), this::retryEffects);
    }
  }

  private void publishSlice() {
    if (!begun || closed) {
      return;
    }
    try {
      var changes = migModes.apply();
      status.lastSpec().ifPresent(spec -> devices.useSharing(spec.sharing()));
      var offered = devices.offered(preparer.heldDevices().keySet());
      offered.notes().forEach(n -> LOG.info("node {}: {}", config.nodeName(), n));
      changes.ifPresent(c -> migModes.report(c, offered.notes()));
      reportSharing(offered);
      // The ledger judges prepares by what the node offers, as the store does.
      preparer.durable().ledger().judgeBy(offered.use(config.nodeName()));
      slice.publish(offered.devices(), offered.counters());
    } catch (RuntimeException e) {
      LOG.warn(
          "node {}: publishing the device slice failed; the heartbeat tries again",
          config.nodeName(),
          e);
    }
    checkTaskDevices(); // on every rescan: a GPU's own node is not among the watched control nodes
  }

  /**
   * Says where users look what the time-sliced GPUs did: an event per GPU that changed form, and
   * one per wait that begins (said once, not at every publish while it lasts).
   */
  private void reportSharing(dev.quartermaster.agent.devices.NodeOffer.Offered offered) {
    var involved = new InvolvedObject(Kinds.NODE.name(), config.nodeName());
    for (var change : offered.sharingChanges()) {
      LOG.info("node {}: {}", config.nodeName(), change);
      recorder.record(involved, EventType.Normal, "SharingChanged", change);
    }
    for (var wait : offered.sharingWaits()) {
      if (!sharingWaits.contains(wait)) {
        LOG.info("node {}: {}", config.nodeName(), wait);
        recorder.record(involved, EventType.Warning, "SharingWaiting", wait);
      }
    }
    sharingWaits = java.util.Set.copyOf(offered.sharingWaits());
  }

  /** The prepare pipeline (for tests and {@code qm up}). */
  public ClaimPreparer preparer() {
    return preparer;
  }

  /** The control nodes as last checked. */
  public ControlNodeStatus controlNodes() {
    return controlNodes.get();
  }

  public NodeAgentConfig config() {
    return config;
  }

  /**
   * Stops watching and working, kills the tasks it runs (no agent would follow them; a restarted
   * agent reports them {@code AgentRestarted}) and releases the state directory; helpers keep
   * running for the next agent.
   */
  @Override
  public void close() throws IOException {
    stop(true);
  }

  /**
   * Stops as a {@code kill -9} would: no more work, no clean-up — task processes, helpers, specs
   * and whatever the ledger file made durable stay on the host for the next agent to find.
   */
  public void halt() throws IOException {
    stop(false);
  }

  /**
   * Runs a device-event task unless the agent stopped: under {@link #deviceWork}, which {@link
   * #stop} takes too, so once stop has passed it no such task is half done (one that rewrote CDI
   * specs after the agent had stopped wrote into a directory its owner was removing).
   */
  private void whileOpen(Runnable task) {
    deviceWork.lock();
    try {
      if (!closed) {
        task.run();
      }
    } finally {
      deviceWork.unlock();
    }
  }

  private void stop(boolean killTasks) throws IOException {
    closed = true;
    deviceWork.lock(); // waits for a device-event task in progress; later ones see closed
    deviceWork.unlock();
    heartbeat.cancel();
    daemonWatch.close();
    if (watcher != null) {
      watcher.close();
    }
    devices.close();
    plugins.close();
    claims.stop();
    tasks.stop();
    volumes.stop();
    if (claimWorkers != null) {
      claimWorkers.stop();
    }
    if (taskWorkers != null) {
      taskWorkers.stop();
    }
    if (volumeWorkers != null) {
      volumeWorkers.stop();
    }
    volumeQueue.shutDown();
    claimQueue.shutDown();
    taskQueue.shutDown();
    if (killTasks) {
      // A reconcile still in flight when the workers stopped would see the process die of this
      // kill and write it as the task's own error (ClusterEndToEndTest under CI's load: "Error",
      // not the next agent's "AgentRestarted"): it finishes first, bounded.
      awaitIdle(taskWorkers);
      taskSync.stopAll();
      // So do a prepare or a volume step in flight: once close returns, nothing of this agent
      // writes its state, specs or device root any more (its owner may be removing them).
      awaitIdle(claimWorkers);
      awaitIdle(volumeWorkers);
    }
    lock.close();
  }

  private static void awaitIdle(Workers<?> workers) {
    if (workers == null) {
      return;
    }
    var idle = new java.util.concurrent.CompletableFuture<Void>();
    workers.whenIdle(() -> idle.complete(null));
    try {
      idle.get(TaskSync.KILL_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.warn("a reconcile still ran {} after the agent stopped its workers", TaskSync.KILL_WAIT);
    }
  }
}
