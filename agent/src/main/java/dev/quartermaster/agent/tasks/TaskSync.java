package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.host.RunRecords;
import dev.quartermaster.agent.host.TaskHost;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.runtime.ProcessTree;
import dev.quartermaster.agent.runtime.TaskHandle;
import dev.quartermaster.agent.runtime.TaskLaunch;
import dev.quartermaster.agent.runtime.TaskState;
import dev.quartermaster.agent.sync.AgentContext;
import dev.quartermaster.agent.volumes.MountedVolume;
import dev.quartermaster.agent.volumes.VolumeMounts;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.DeviceLossPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one Task (by name) with this node: the agent's half of the task lifecycle in {@code
 * control}'s {@code lifecycle/package-info}.
 *
 * <pre>
 * Scheduled --(claims not all Prepared here {@link #CLAIMS_WAIT_SAID_AFTER} after it was first seen
 *   waiting)--> Preparing, reason WaitingForClaims naming the claim
 * Scheduled/Preparing --(all Prepared, a volume not published here)--> Preparing, reason
 *   WaitingForVolume naming why ({@link VolumeMounts}: missing, held by another, not attached, plugin
 *   not healthy here, publishing, a call failed)
 * Scheduled/Preparing --(all Prepared and every volume published, the task live as cached)--> runtime.start
 *   (exec: QM_VOLUME_* env pointing at the published paths; podman: bind mounts at /volumes/...)
 *   → Preparing "Starting" only if its device check has not passed {@link #STARTING_SAID_AFTER} later
 *   → Running only after the device check passed (status.deviceCheck lists what opened)
 *   → Succeeded/Failed with exitCode, finishedAt and the reason (DeviceCheckFailed, StartFailed, ...)
 * deletedAt set → the process is killed; once it is gone the task's claims are handed back to the
 *   claim sync, which unprepares them and reports Unprepared (the controller's claims finalizer waits)
 * Running (or Scheduled/Preparing with a run record) but no process of ours → Failed AgentRestarted: never re-run
 * Finished in the store (e.g. NodeLost) while our process still runs → the process is killed
 * Running and the node lost a device node the task opened → condition DevicesComplete=False
 *   (DeviceNodeMissing, naming the path), True again when it is back; with onDeviceLoss: Stop the
 *   process is killed and the task ends Failed DeviceNodeMissing
 * Scheduled/Preparing, claims prepared, a claim's compute domain not Ready ({@link DomainGate}) →
 *   Preparing, reason WaitingForComputeDomain naming why; it starts only once the domain is Ready
 * Running with a compute domain → condition ComputeDomainReady=False (DaemonNotReady, naming the
 *   daemon's state) while the domain's daemon here is down, True again when it is back
 * </pre>
 *
 * <p>On start ({@link #stopLeftovers}), before any claim is prepared again, every process an
 * earlier agent started here is stopped ({@link RunRecords#stopAll}), whatever the store says of
 * its task: the task may have been marked lost and replaced meanwhile, and a process nobody follows
 * would go on using a GPU that a new claim is about to be given (I1 among processes).
 *
 * <p>The processes it starts, and the claims each was started with, are recorded in {@link
 * ClaimUse}, which the claim sync asks before it releases a claim.
 *
 * <p>Output goes to {@code <state>/tasks/<task>.log}; the previous attempt's (an earlier
 * incarnation of the same name) is kept as {@code <task>.previous.log}. Handle events (check done,
 * exit) come back through the work queue, so each task's status has one writer at a time.
 */
public final class TaskSync {
  private static final Logger LOG = LoggerFactory.getLogger(TaskSync.class);

  /** A running task's condition: its compute domain's daemon runs on its node. */
  public static final String DOMAIN_READY = "ComputeDomainReady";

  /** How often a task that waits for its compute domain to be Ready looks again. */
  static final java.time.Duration DOMAIN_RECHECK = java.time.Duration.ofSeconds(1);

  /**
   * How long a started process may wait for its device check before the task says so (Preparing,
   * reason Starting): a podman image pull, say. A quicker start writes nothing between the claims'
   * wait and Running, one store write per task fewer.
   */
  public static final Duration STARTING_SAID_AFTER = Duration.ofSeconds(2);

  /**
   * How long a Scheduled task may wait for its claims to be prepared here before it says so
   * (Preparing, reason WaitingForClaims). The allocator schedules a task in the transaction that
   * allocates its claims, before any agent has seen them, and a prepare takes milliseconds: said at
   * once, it was one store write per task, stale as soon as it landed.
   */
  public static final Duration CLAIMS_WAIT_SAID_AFTER = Duration.ofSeconds(2);

  /** How long a stopping agent waits for the tasks it killed to end. */
  public static final Duration KILL_WAIT = Duration.ofSeconds(5);

  /** The longest a stopping agent waits for its tasks to end on SIGTERM before it kills them. */
  public static final Duration STOP_GRACE = Duration.ofSeconds(10);

  private final ClaimsGate claimsGate;
  private final ApiClient api;
  private final String node;
  private final Env env;
  private final EventRecorder events;
  private final TaskViews views;
  private final TaskHost host;
  private final Function<String, Path> logOf;
  private final RunRecords records;
  private final VolumeMounts volumes;
  private final DomainGate domains;
  private final ClaimUse runs;
  private final Consumer<String> requeue;
  private final Duration recheck;

  /**
   * What the processes of an earlier agent were, per task; each is reported once, then forgotten.
   */
  private final Map<String, RunRecords.Leftover> leftovers = new ConcurrentHashMap<>();

  /** {@code <task>/<uid>} → when a task sent SIGTERM is killed if it has not ended. */
  private final Map<String, java.time.Instant> terminating = new ConcurrentHashMap<>();

  private volatile boolean leftoversStopped;

  /** The node's device-node problems as last checked (control nodes, held GPUs' nodes). */
  private volatile List<NodeProblem> nodeProblems = List.of();

  /**
   * @param agent the API, this node, the clock; {@code events} hears of each task started, ended,
   *     or losing a device node while it runs
   * @param views the tasks and claims as cached, and the claims this node's ledger holds prepared
   * @param hosting where processes run and are recorded, their volumes and compute domains
   * @param runs where each process started here is recorded with its claims, and its claims let go
   * @param requeue queues a task name for another sync
   * @param recheck how often a task waiting for its claims looks again without being told
   */
  public TaskSync(
      AgentContext agent,
      TaskViews views,
      TaskHosting hosting,
      ClaimUse runs,
      Consumer<String> requeue,
      Duration recheck) {
    this.api = agent.api();
    this.node = agent.node();
    this.env = agent.env();
    this.events = agent.events();
    this.views = views;
    this.claimsGate = new ClaimsGate(node, env, views);
    this.host = hosting.host();
    this.logOf = hosting.logOf();
    this.records = host.records();
    this.volumes = hosting.volumes();
    this.domains = hosting.domains();
    this.runs = runs;
    this.requeue = requeue;
    this.recheck = recheck;
  }

  /**
   * The start step, once, before the first sync: stops every process an earlier agent started here
   * and keeps what was found, for those tasks' statuses.
   */
  public void stopLeftovers() {
    leftovers.putAll(records.stopAll());
    leftoversStopped = true;
  }

  /** The state of a compute domain's daemon here changed: every running task looks again. */
  public void daemonsChanged() {
    runs.tasks().forEach(requeue);
  }

  /** The compute domains the task's claims name. */
  private java.util.SortedSet<String> domainsOf(Task t) {
    var out = new java.util.TreeSet<String>();
    t.spec()
        .claims()
        .forEach(c -> views.claim(c).flatMap(x -> x.spec().computeDomain()).ifPresent(out::add));
    return out;
  }

  /** The tasks with a process started here, by name. */
  public List<String> running() {
    return runs.tasks();
  }

  /** Whether {@code task} has a process started here that is not yet reported ended. */
  public boolean runs(String task) {
    return runs.hasRun(task);
  }

  /** Whether a change to {@code task} could concern this node. */
  public boolean concerns(Task task) {
    return task.spec().node().filter(node::equals).isPresent()
        || runs.hasRun(task.metadata().name());
  }

  /**
   * The node's device nodes were checked again: {@code problems} are those missing or wrong now.
   * Every running task looks again (its DevicesComplete condition, its onDeviceLoss policy).
   */
  public void deviceNodesChanged(List<NodeProblem> problems) {
    var next = List.copyOf(problems);
    if (!next.equals(nodeProblems)) {
      nodeProblems = next;
      runs.tasks().forEach(requeue);
    }
  }

  /** One reconcile of the task called {@code name}. */
  public Result sync(String name) {
    if (!leftoversStopped) {
      throw new IllegalStateException("stopLeftovers() comes before the first sync");
    }
    try {
      return syncOrThrow(name);
    } catch (ApiException e) {
      if (e.is(Reason.Conflict) || e.is(Reason.NotFound)) {
        return Result.requeue(); // our view is stale; the next sync reads again
      }
      throw e;
    }
  }

  private Result syncOrThrow(String name) {
    var cached = views.task(name);
    var run = runs.run(name);
    if (run.isPresent()
        && (cached.isEmpty()
            || !cached.get().metadata().uid().equals(run.get().uid())
            || cached.get().metadata().isDeleting())) {
      return stop(name, run.get(), cached);
    }
    if (cached.isEmpty()) {
      claimsGate.forget(name);
      return Result.done();
    }
    var t = cached.get();
    if (t.metadata().isDeleting()) {
      claimsGate.forget(name);
      runs.letGo(t.spec().claims()); // never started here, or already stopped
      return Result.done();
    }
    if (t.spec().node().filter(node::equals).isEmpty()) {
      return Result.done();
    }
    if (run.isPresent()) {
      return report(t, run.get());
    }
    var phase = t.status().phase();
    var leftover =
        Optional.ofNullable(leftovers.get(name)).filter(r -> r.uid().equals(t.metadata().uid()));
    // A record of this incarnation's process: an earlier agent started it (in any phase before
    // Running,
    // as the status is not written at the start).
    if (phase == TaskPhase.Running
        || ((phase == TaskPhase.Scheduled || phase == TaskPhase.Preparing)
            && leftover.isPresent())) {
      var found = leftover.map(RunRecords.Leftover::found).orElse("no record of its process");
      write(
          t,
          TaskStatuses.failed(
              t.status(),
              "AgentRestarted",
              "the agent on "
                  + node
                  + " restarted while the task ran and does not run it again ("
                  + found
                  + ")",
              env.now()));
      leftovers.remove(name);
      return Result.done();
    }
    if (phase != TaskPhase.Scheduled && phase != TaskPhase.Preparing) {
      return Result.done(); // Pending is the scheduler's; finished tasks are done
    }
    return prepareAndStart(t);
  }

  private Result prepareAndStart(Task t) {
    List<String> cdiDevices;
    List<ClaimRef> used;
    switch (claimsGate.check(t)) {
      case ClaimsGate.Closed closed -> {
        if (t.status().phase() == TaskPhase.Scheduled
            && closed.waited().compareTo(CLAIMS_WAIT_SAID_AFTER) < 0) {
          return Result.requeueAfter(
              CLAIMS_WAIT_SAID_AFTER.minus(closed.waited())); // or the claim's update, sooner
        }
        write(t, TaskStatuses.preparing(t.status(), "WaitingForClaims", closed.why()));
        return Result.requeueAfter(recheck); // the claim's update normally brings us back sooner
      }
      case ClaimsGate.Open open -> {
        cdiDevices = open.cdiDevices();
        used = open.used();
      }
    }
    // A rank starts only once every member of its domain can be reached (the domain is Ready).
    for (var domain : domainsOf(t)) {
      var notReady = domains.notReadyToStart(domain);
      if (notReady.isPresent()) {
        write(t, TaskStatuses.preparing(t.status(), "WaitingForComputeDomain", notReady.get()));
        // The domain's readiness comes from other nodes, with no event here: look again soon.
        return Result.requeueAfter(DOMAIN_RECHECK);
      }
    }
    // Volumes after claims: a publish is only asked for once the task's devices are in place.
    var mounted = List.<MountedVolume>of();
    if (!t.spec().volumes().isEmpty()) {
      switch (volumes.ensure(t)) {
        case VolumeMounts.Waiting w -> {
          write(t, TaskStatuses.preparing(t.status(), VolumeMounts.WAITING, w.message()));
          return w.backoff() ? Result.requeue() : Result.requeueAfter(recheck);
        }
        case VolumeMounts.Ready r -> mounted = r.volumes();
      }
    }
    var name = t.metadata().name();
    var runtime = host.runtime(t.spec().runtime());
    if (runtime.isEmpty()) {
      write(
          t,
          TaskStatuses.failed(
              t.status(),
              "UnknownRuntime",
              "runtime '" + t.spec().runtime() + "' is not one of exec, podman, noop",
              env.now()));
      return Result.done();
    }
    TaskLaunch launch;
    try {
      boolean container = t.spec().runtime().equals("podman");
      launch =
          new TaskLaunch(
              name,
              t.spec().command(),
              container ? t.spec().env() : MountedVolume.env(t.spec().env(), mounted),
              cdiDevices,
              container ? MountedVolume.mounts(mounted) : List.of(),
              TaskRuntimes.image(t.spec().image()),
              logOf.apply(name));
    } catch (IllegalArgumentException e) {
      write(t, TaskStatuses.failed(t.status(), "InvalidTask", e.getMessage(), env.now()));
      return Result.done();
    }
    // Only the task as cached may start: one deleted or replaced since (the cache not showing it
    // yet)
    // must not. A live read proves it, as a compare-and-set write did, without a write.
    var live = api.get(Kinds.TASK, name);
    if (live.isEmpty() || live.get().metadata().revision() != t.metadata().revision()) {
      return Result.requeue(); // the cache catches up, and its event brings us back
    }
    var uid = t.metadata().uid();
    var start = launch;
    var starting =
        (mounted.isEmpty() ? "claims prepared" : "claims prepared, volumes published")
            + "; starting with the "
            + t.spec().runtime()
            + " runtime";
    var started =
        volumes.startUnlessReleased(
            t,
            () -> {
              var r =
                  new TaskRun(
                      uid,
                      runtime.get().start(start),
                      List.copyOf(used),
                      Optional.empty(),
                      env.now(),
                      starting);
              runs.started(name, r); // the releasers see it running from here on
              return r;
            });
    if (started.isEmpty()) { // the task was deleted or replaced while its volumes were published
      return Result.requeue();
    }
    var run = started.get();
    var handle = run.handle();
    try {
      records.started(name, run.uid(), handle);
    } catch (IOException e) {
      LOG.warn("task {}: cannot record its process; a restarted agent will not find it", name, e);
    }
    handle.deviceCheck().whenComplete((c, e) -> requeue.accept(name));
    var volumeNames = t.spec().volumes().stream().map(VolumeUse::name).toList();
    handle
        .result()
        .whenComplete(
            (r, e) -> {
              requeue.accept(name);
              volumes.processEnded(volumeNames); // only now may its volume claims be released (I2)
              // Whatever ended it (exit, kill): the claims it kept prepared may now be let go.
              runs.letGo(run.claims().stream().map(ClaimRef::name).toList());
            });
    LOG.info("task {}: started with {} devices {}", name, t.spec().runtime(), cdiDevices);
    return report(t, run);
  }

  /** Brings the task's status in line with its process. */
  private Result report(Task t, TaskRun run) {
    var phase = t.status().phase();
    if (phase.isFinished() && !(run.handle().state() instanceof TaskState.Finished)) {
      // The control plane ended the task while its process still runs here (marked lost while this
      // node was cut off, then fenced, say): its claims may already be another's, so it must stop.
      LOG.warn(
          "task {}: {} ({}) in the store while its process still runs here; killing it",
          t.metadata().name(),
          phase,
          t.status().reason());
      run.handle().kill();
      return Result.done(); // the result's completion brings us back to forget the run
    }
    switch (run.handle().state()) {
      case TaskState.Starting s -> {
        var waited = Duration.between(run.startedAt(), env.now());
        if (waited.compareTo(STARTING_SAID_AFTER) < 0) {
          return Result.requeueAfter(
              STARTING_SAID_AFTER.minus(waited)); // or the check's completion, sooner
        }
        write(t, TaskStatuses.preparing(t.status(), "Starting", run.starting()));
        return Result.done(); // the check's completion brings us back
      }
      case TaskState.Running r -> {
        var devices = DevicesComplete.of(r.check().opened(), nodeProblems);
        var next =
            phase != TaskPhase.Running
                ? TaskStatuses.running(t.status(), r.check(), env.now())
                : t.status();
        next = TaskStatuses.withCondition(next, devices, env.now());
        for (var domain : domainsOf(t)) {
          var down = domains.daemonDown(domain);
          next =
              TaskStatuses.withCondition(
                  next,
                  down.map(
                          why ->
                              new Condition(
                                  DOMAIN_READY,
                                  Condition.Status.False,
                                  "DaemonNotReady",
                                  "compute domain " + domain + ": " + why,
                                  Optional.empty()))
                      .orElse(
                          new Condition(
                              DOMAIN_READY,
                              Condition.Status.True,
                              "DaemonReady",
                              "the daemon of compute domain " + domain + " runs on " + node,
                              Optional.empty())),
                  env.now());
        }
        write(t, next);
        if (!devices.isTrue()
            && t.spec().onDeviceLoss() == DeviceLossPolicy.Stop
            && run.deviceLoss().isEmpty()) {
          LOG.info(
              "task {}: stopped, onDeviceLoss is Stop: {}", t.metadata().name(), devices.message());
          runs.replace(t.metadata().name(), run, run.stoppedFor(devices.message()));
          run.handle().kill(); // the result's completion brings us back
        }
        return Result.done();
      }
      case TaskState.Finished f -> {
        if (phase.isFinished()) {
          // Our final write is in the cache: nothing of this run is left to follow.
          runs.forget(t.metadata().name(), run);
          records.remove(t.metadata().name());
          return Result.done();
        }
        write(
            t,
            run.deviceLoss()
                .map(
                    why ->
                        TaskStatuses.failed(
                            t.status(),
                            DevicesComplete.MISSING,
                            "stopped because the node lost a device node it was given (onDeviceLoss: Stop): "
                                + why,
                            env.now()))
                .orElseGet(() -> TaskStatuses.finished(t.status(), f.result(), env.now())));
        return Result.done(); // the update's event brings us back to forget the run
      }
    }
  }

  /** {@code run}'s grace period: its task's, if {@code cached} is that very task; else none. */
  private static Duration graceOf(TaskRun run, Optional<Task> cached) {
    return cached
        .filter(t -> t.metadata().uid().equals(run.uid()))
        .map(t -> t.spec().gracePeriod())
        .orElse(Duration.ZERO);
  }

  /**
   * The task was deleted (or replaced): stop its process, SIGTERM first and SIGKILL once its grace
   * period is over (a task object gone or replaced gets none); once it is gone, let its claims go.
   */
  private Result stop(String name, TaskRun run, Optional<Task> cached) {
    if (!(run.handle().state() instanceof TaskState.Finished)) {
      var grace = graceOf(run, cached);
      var key = name + "/" + run.uid();
      var deadline = terminating.get(key);
      if (deadline == null && !grace.isZero()) {
        run.handle().terminate();
        terminating.put(key, env.now().plus(grace));
        LOG.info("task {}: SIGTERM sent; killed in {} s unless it ends", name, grace.toSeconds());
        return Result.requeueAfter(grace); // its end brings us back sooner
      }
      if (deadline != null && env.now().isBefore(deadline)) {
        return Result.requeueAfter(Duration.between(env.now(), deadline));
      }
      run.handle().kill();
      return Result.done(); // the result's completion brings us back
    }
    terminating.remove(name + "/" + run.uid());
    runs.forget(name, run);
    records.remove(name);
    LOG.info("task {}: process stopped after deletion", name);
    cached
        .filter(t -> t.metadata().uid().equals(run.uid()))
        .ifPresent(t -> runs.letGo(t.spec().claims()));
    return Result.requeue(); // look at the current object (e.g. a new incarnation) again
  }

  private Task write(Task t, TaskStatus next) {
    if (next.equals(t.status())) {
      return t;
    }
    var s = t.status();
    if (next.phase() == s.phase()
        && next.reason().equals(s.reason())
        && next.message().equals(s.message())
        && next.deviceCheck().equals(s.deviceCheck())
        && next.exitCode().equals(s.exitCode())
        && next.conditions().equals(s.conditions())) {
      return t;
    }
    LOG.debug(
        "task {}: {} {} -> {} {}",
        t.metadata().name(),
        s.phase(),
        s.reason(),
        next.phase(),
        next.reason());
    var written = api.updateStatus(t.withStatus(next));
    TaskEvents.written(events, t, s, next);
    return written;
  }

  /**
   * Stops every task this agent runs (the agent is stopping, as at a Ctrl-C of {@code qm up}:
   * nobody would follow them) as a deletion stops one: SIGTERM to each task with a grace period,
   * and SIGKILL once its period is over — waiting at most {@link #STOP_GRACE} for them all — or at
   * once for a task without one.
   */
  public void stopAll() {
    var all = List.copyOf(runs.runs());
    var asked = new java.util.LinkedHashMap<TaskHandle, Duration>();
    for (var run : all) {
      var grace = graceOf(run, views.task(run.handle().name()));
      if (!grace.isZero() && !(run.handle().state() instanceof TaskState.Finished)) {
        run.handle().terminate();
        asked.put(run.handle(), grace.compareTo(STOP_GRACE) < 0 ? grace : STOP_GRACE);
      }
    }
    if (!asked.isEmpty()) {
      LOG.info(
          "agent stopping: SIGTERM sent to tasks {}",
          asked.keySet().stream().map(TaskHandle::name).toList());
    }
    // One deadline for them all.
    long deadline = env.nanoTime() + STOP_GRACE.toNanos();
    asked.forEach(
        (handle, grace) -> {
          long left = Math.min(grace.toNanos(), deadline - env.nanoTime());
          if (left > 0) {
            try {
              handle.result().get(left, java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
              // killed below
            }
          }
        });
    killAll(all);
  }

  private void killAll(List<TaskRun> all) {
    var tree = ProcessTree.onDemand(); // shared: where the whole tree must be read, it is read once
    var killed =
        all.stream()
            .map(TaskRun::handle)
            .filter(h -> !(h.state() instanceof TaskState.Finished))
            .toList();
    killed.forEach(h -> h.kill(tree));
    // A kill is a signal, not an end: a task still alive when this agent is gone is found by the
    // next one as running, and its death then reported as the task's own error (ClusterEndToEndTest
    // under CI's load). Its end is awaited, bounded, so nothing of a stopped agent's runs on.
    for (var h : killed) {
      try {
        h.result().get(KILL_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        LOG.warn("task {}: not seen to end within {} of its kill", h.name(), KILL_WAIT);
      }
    }
  }
}
