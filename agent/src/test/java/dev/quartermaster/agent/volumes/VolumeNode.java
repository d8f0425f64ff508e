package dev.quartermaster.agent.volumes;

import dev.quartermaster.agent.host.MapCsiEndpoints;
import dev.quartermaster.agent.host.RunRecords;
import dev.quartermaster.agent.host.TaskHost;
import dev.quartermaster.agent.plugins.PluginProber;
import dev.quartermaster.agent.runtime.DeviceCheck;
import dev.quartermaster.agent.runtime.RuntimeTask;
import dev.quartermaster.agent.runtime.TaskHandle;
import dev.quartermaster.agent.runtime.TaskLaunch;
import dev.quartermaster.agent.runtime.TaskResult;
import dev.quartermaster.agent.runtime.TaskRuntime;
import dev.quartermaster.agent.sync.AgentContext;
import dev.quartermaster.agent.tasks.ClaimUse;
import dev.quartermaster.agent.tasks.DomainGate;
import dev.quartermaster.agent.tasks.TaskHosting;
import dev.quartermaster.agent.tasks.TaskSync;
import dev.quartermaster.agent.tasks.TaskViews;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.DeviceLossPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.core.queue.ExponentialBackoff;
import dev.quartermaster.core.queue.WorkQueue;
import dev.quartermaster.core.queue.Workers;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One node's volume side in virtual time, without informers: the real TaskSync, VolumeMounts,
 * VolumeReleaser, NodeCalls and PluginProber over an in-process API (SQLite + ObjectRegistry), a
 * {@link FakeCsiPlugin}, and a task runtime that only logs its starts (into the plugin's log) and
 * whose processes end when the test says so. Processes and their records belong to the node and
 * outlive an {@link Agent}, so {@link #restart} is a {@code kill -9} of the agent.
 */
final class VolumeNode implements AutoCloseable {
  static final String NODE = "node-1";
  static final String ENDPOINT = "unix:///var/lib/qm/plugins/fake.sock";
  static final Path STATE = Path.of("/var/lib/qm/state");

  final DeterministicEnv env = new DeterministicEnv(26831);
  final List<String> log = new ArrayList<>();

  /** The events the agents recorded, as {@code TYPE REASON KIND/NAME MESSAGE}. */
  final List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());

  final FakeCsiPlugin plugin = new FakeCsiPlugin(env, log);
  final MapCsiEndpoints endpoints = new MapCsiEndpoints();

  /** The node's processes by task name (the latest of each). */
  final Map<String, RuntimeTask> processes = new HashMap<>();

  /** What the agents recorded: task → (uid, process); survives the agent. */
  private final Map<String, Map.Entry<String, RuntimeTask>> records = new HashMap<>();

  private final SqliteStore store;
  final ApiClient api;
  private final Path tmp;

  /**
   * The API as the next agent sees it (a test may wrap it); the test itself writes through {@link
   * #api}.
   */
  UnaryOperator<ApiClient> agentApi = UnaryOperator.identity();

  /** The tasks the next agent's releaser finds in its cache; by default what the store has. */
  Function<String, Optional<Task>> taskCache;

  /** The tasks the next agent's task sync sees; by default what the store has. */
  Function<String, Optional<Task>> taskSyncView;

  /**
   * Processes started from now on stay before their device check (an image being pulled) until
   * {@link #pass}.
   */
  boolean holdChecks;

  /**
   * Whether the next agent sees the node's publications; false is the naive agent that knows only
   * the store's claims.
   */
  boolean seesPublications = true;

  Agent agent;

  VolumeNode(Path tmp) throws Exception {
    this.tmp = tmp;
    store = SqliteStore.open(tmp.resolve("store.db"));
    api = ObjectRegistry.withoutCrossObjectRules(store, env);
    taskCache = name -> api.get(Kinds.TASK, name);
    taskSyncView = name -> api.get(Kinds.TASK, name);
    endpoints.put(ENDPOINT, plugin);
    agent = new Agent();
  }

  /** The agent's parts that a crash loses (all of its memory). */
  final class Agent {
    final PluginProber prober;
    final NodeCalls calls;
    final VolumeMounts mounts;
    final ClaimUse runs;
    final TaskSync tasks;
    final VolumeReleaser releaser;
    final WorkQueue<String> taskQueue;
    final WorkQueue<String> volumeQueue;
    private final Workers<String> taskWorkers;
    private final Workers<String> volumeWorkers;

    Agent() {
      var api = agentApi.apply(VolumeNode.this.api);
      taskQueue =
          new WorkQueue<>(
              env, new ExponentialBackoff<>(Duration.ofMillis(100), Duration.ofSeconds(10)));
      volumeQueue =
          new WorkQueue<>(
              env, new ExponentialBackoff<>(Duration.ofMillis(100), Duration.ofSeconds(10)));
      // As the agent does: a plugin change is looked at by every task and volume at once.
      prober =
          new PluginProber(
              env, NODE, endpoints, Duration.ofSeconds(30), Duration.ofSeconds(5), list -> kick());
      calls = new NodeCalls(new VolumePaths(STATE), new KeyedSerializer<>(env));
      mounts =
          new VolumeMounts(
              NODE,
              name -> api.get(Kinds.VOLUME, name),
              prober,
              calls,
              taskQueue::add,
              volumeQueue::add);
      runs =
          new ClaimUse(NODE, name -> taskSyncView.apply(name), claim -> {}); // no claim sync here
      tasks =
          new TaskSync(
              AgentContext.withoutEvents(api, NODE, env),
              TaskViews.of(
                  name -> taskSyncView.apply(name),
                  name -> Optional.empty(),
                  uid -> Optional.empty()),
              new TaskHosting(
                  new Host(), name -> tmp.resolve(name + ".log"), mounts, DomainGate.NONE),
              runs,
              taskQueue::add,
              Duration.ofSeconds(1));
      tasks.stopLeftovers(); // a new agent stops what the one before it left running
      var agent =
          new AgentContext(
              api,
              NODE,
              env,
              (involved, type, reason, message) ->
                  events.add(
                      type
                          + " "
                          + reason
                          + " "
                          + involved.kind().toLowerCase(java.util.Locale.ROOT)
                          + "/"
                          + involved.name()
                          + " "
                          + message));
      releaser =
          new VolumeReleaser(
              agent,
              new VolumeViews(name -> api.get(Kinds.VOLUME, name), taskCache, runs::mayRun),
              new NodeVolumes(
                  prober,
                  calls,
                  mounts,
                  () ->
                      seesPublications
                          ? java.util.Set.copyOf(plugin.published.keySet())
                          : java.util.Set.of()),
              volumeQueue::add,
              Duration.ofSeconds(1));
      taskWorkers = Workers.start(env, taskQueue, 2, tasks::sync);
      volumeWorkers = Workers.start(env, volumeQueue, 2, releaser::sync);
      prober.start();
    }

    void halt() {
      taskWorkers.stop();
      volumeWorkers.stop();
      taskQueue.shutDown();
      volumeQueue.shutDown();
      prober.close();
    }
  }

  /**
   * A {@code kill -9} of the agent and a new one on the same node (processes are stopped by the new
   * one).
   */
  void restart() {
    agent.halt();
    agent = new Agent();
  }

  /** What informers would do: every task and volume looked at again; then {@code time} passes. */
  void settle(Duration time) {
    kick();
    env.advance(time);
  }

  private void kick() {
    api.list(Kinds.TASK).items().forEach(t -> agent.taskQueue.add(t.metadata().name()));
    api.list(Kinds.VOLUME).items().forEach(v -> agent.volumeQueue.add(v.metadata().name()));
  }

  void settle() {
    settle(Duration.ofSeconds(2));
  }

  Task task(String name, VolumeUse... volumes) {
    return task(name, "exec", volumes);
  }

  Task task(String name, String runtime, VolumeUse... volumes) {
    return task(name, runtime, List.of(), volumes);
  }

  /**
   * A task Scheduled here naming {@code claims}, which this harness never prepares (the claim sync
   * is not in it).
   */
  Task taskWithClaims(String name, List<String> claims) {
    return task(name, "exec", claims);
  }

  private Task task(String name, String runtime, List<String> claims, VolumeUse... volumes) {
    var image =
        runtime.equals("podman")
            ? Optional.of("docker.io/library/busybox:1.37")
            : Optional.<String>empty();
    var spec =
        new TaskSpec(
            Optional.of(NODE),
            List.of("train"),
            Map.of("EPOCHS", "3"),
            claims,
            List.of(volumes),
            runtime,
            image,
            0,
            DeviceLossPolicy.Continue);
    var status =
        new TaskStatus(
            TaskPhase.Scheduled,
            "Scheduled",
            "",
            Optional.of(NODE),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of());
    return api.create(new Task(ObjectMeta.named(name), spec, status));
  }

  Volume volume(String name, AccessMode mode) {
    var v =
        api.create(
            new Volume(
                ObjectMeta.named(name),
                new VolumeSpec(FakeCsiPlugin.NAME, 1L << 30, mode, Map.of()),
                VolumeStatus.EMPTY));
    return api.updateStatus(
        v.withStatus(
            new VolumeStatus(
                VolumePhase.Available, "vol-" + name, 1L << 30, List.of(), List.of())));
  }

  /**
   * The volume controller's grant, for {@code task} on {@code node}; {@code attached}:
   * ControllerPublish done.
   */
  void grant(String volume, Task task, String node, VolumeClaim.Mode mode, boolean attached) {
    var v = api.get(Kinds.VOLUME, volume).orElseThrow();
    var claim =
        new VolumeClaim(
            task.metadata().name(),
            task.metadata().uid(),
            node,
            mode,
            VolumeClaim.State.Taken,
            attached,
            attached ? Map.of("device", "/dev/fake0") : Map.of());
    var claims = new ArrayList<>(v.status().claims());
    claims.removeIf(c -> c.heldBy(claim.task(), claim.taskUid()));
    claims.add(claim);
    api.updateStatus(v.withStatus(v.status().withClaims(claims)));
  }

  /**
   * A fence's hand-over: the claim of {@code task} freed by the controller without its node (only
   * the node keeps its publication).
   */
  void freeWithoutNode(String volume, Task task) {
    var v = api.get(Kinds.VOLUME, volume).orElseThrow();
    // Its steps as the controller writes them: detached on the node's behalf, then removed.
    var detached =
        v.status().claims().stream()
            .map(
                c ->
                    c.heldBy(task.metadata().name(), task.metadata().uid())
                        ? VolumeClaimMachine.apply(
                                VolumeClaimMachine.apply(c, new VolumeClaimEvent.NodeGone())
                                    .orThrow(),
                                new VolumeClaimEvent.ControllerReleased())
                            .orThrow()
                        : c)
            .toList();
    v = api.updateStatus(v.withStatus(v.status().withClaims(detached)));
    var claims = new ArrayList<>(v.status().claims());
    claims.removeIf(c -> c.heldBy(task.metadata().name(), task.metadata().uid()));
    api.updateStatus(v.withStatus(v.status().withClaims(claims)));
  }

  Optional<VolumeClaim> claim(String volume, Task task) {
    return api.get(Kinds.VOLUME, volume).orElseThrow().status().claims().stream()
        .filter(c -> c.heldBy(task.metadata().name(), task.metadata().uid()))
        .findFirst();
  }

  /**
   * Deletes the task and delivers the delete event to the task and volume queues, as the informers
   * would.
   */
  void delete(String task) {
    var t = read(task);
    api.delete(Kinds.TASK, task);
    agent.taskQueue.add(task);
    t.spec().volumes().forEach(v -> agent.volumeQueue.add(v.name()));
  }

  Task read(String task) {
    return api.get(Kinds.TASK, task).orElseThrow();
  }

  /** The task's process, held before its device check, passes it. */
  void pass(String task) {
    processes.get(task).running(new DeviceCheck.Passed(List.of()));
  }

  /** The task's process exits (with {@code code}). */
  void exit(String task, int code) {
    processes.get(task).finish(new TaskResult.Exited(code, new DeviceCheck.Passed(List.of())));
  }

  static String target(Task t, String volume) {
    return STATE.resolve("csi/publish").resolve(t.metadata().uid()).resolve(volume).toString();
  }

  static String staging(String volume) {
    return STATE.resolve("csi/staging").resolve(volume).toString();
  }

  /**
   * Where processes run: each start is logged; it "passes its device check" at once, and is killed
   * only when told.
   */
  private final class Host implements TaskHost, RunRecords, TaskRuntime {
    @Override
    public Optional<TaskRuntime> runtime(String name) {
      return Optional.of(this);
    }

    @Override
    public RunRecords records() {
      return this;
    }

    @Override
    public TaskHandle start(TaskLaunch launch) {
      var volumeEnv = new TreeMap<String, String>();
      launch
          .env()
          .forEach(
              (k, v) -> {
                if (k.startsWith("QM_VOLUME_")) {
                  volumeEnv.put(k, v);
                }
              });
      log.add(
          "start "
              + launch.name()
              + (volumeEnv.isEmpty() ? "" : " " + volumeEnv)
              + (launch.mounts().isEmpty() ? "" : " " + launch.mounts()));
      var task = new RuntimeTask(launch.name(), launch.output());
      task.onKill(tree -> log.add("kill " + launch.name())); // it dies when the test says (exit)
      processes.put(launch.name(), task);
      if (!holdChecks) {
        env.execute(() -> task.running(new DeviceCheck.Passed(List.of())));
      }
      return task;
    }

    @Override
    public void started(String task, String uid, TaskHandle handle) {
      records.put(task, Map.entry(uid, (RuntimeTask) handle));
    }

    @Override
    public void remove(String task) {
      records.remove(task);
    }

    @Override
    public Map<String, Leftover> stopAll() {
      var found = new HashMap<String, Leftover>();
      records.forEach(
          (task, r) -> {
            r.getValue().finish(new TaskResult.Exited(137, new DeviceCheck.Passed(List.of())));
            found.put(task, new Leftover(r.getKey(), "killed at agent start"));
          });
      records.clear();
      return found;
    }
  }

  @Override
  public void close() throws Exception {
    agent.halt();
    store.close();
  }
}
