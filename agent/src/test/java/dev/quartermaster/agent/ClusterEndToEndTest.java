package dev.quartermaster.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.ControlPlane;
import dev.quartermaster.control.ControlPlaneOptions;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole loop in one process: SQLite store, the real controllers, and an agent on a simulated
 * device root. A workload of 2 workers × 1 GPU comes up Running with a device check that opened the
 * GPU node and every control node, and its output is in the task log. Then I3 live: removing {@code
 * nvidia-uvm} makes the node not DevicesReady, naming it, and a new GPU task does not run;
 * restoring it makes the node ready within a rescan, and the task runs.
 */
class ClusterEndToEndTest {
  private static final String NODE = "node-1";
  private static final String WORKLOAD = "train";

  @TempDir Path tmp;
  private SqliteStore store;
  private ApiClient api;
  private ControlPlane plane;
  private NodeAgent agent;
  private SimulatedDeviceRoot sim;

  @BeforeEach
  void setUp() throws Exception {
    var env = new SystemEnv();
    store = SqliteStore.open(tmp.resolve("store.db"));
    api = new ObjectRegistry(store, env);
    plane =
        ControlPlane.start(
            api,
            new dev.quartermaster.store.StoreLeases(store),
            env,
            ControlPlaneOptions.defaults("t"));
    sim = SimulatedDeviceRoot.ensure(tmp.resolve("devroot"), 4);
    var config =
        NodeAgentConfig.of(
                api, NODE, tmp.resolve("state"), DeviceRoot.at(sim.root()), tmp.resolve("cdi"), env)
            .withBootId("e2e-boot")
            .withRescanPeriod(Duration.ofSeconds(1))
            .withHeartbeat(Duration.ofSeconds(2));
    agent = NodeAgent.start(config);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      AgentFixture.stop(agent);
    }
    if (plane != null) {
      plane.close();
    }
    store.close();
  }

  private static WorkerGroup group(int replicas) {
    var template =
        new TaskTemplate(
            List.of("sh", "-c", "echo hello; sleep 30"),
            Map.of(),
            "exec",
            Optional.empty(),
            List.of(),
            Map.of());
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpus", "gpu", 1, List.of())), Optional.empty()));
    return new WorkerGroup("w", replicas, template, List.of(claim), RestartPolicy.Never);
  }

  private static Optional<Task> task(List<Task> tasks, String name) {
    return tasks.stream().filter(t -> t.metadata().name().equals(name)).findFirst();
  }

  private static boolean running(List<Task> tasks, String name) {
    return task(tasks, name).filter(t -> t.status().phase() == TaskPhase.Running).isPresent();
  }

  private static Optional<Condition> devicesReady(List<Node> nodes) {
    return nodes.stream()
        .filter(n -> n.metadata().name().equals(NODE))
        .findFirst()
        .flatMap(n -> Condition.find(n.status().conditions(), "DevicesReady"));
  }

  @Test
  void gpuTasksRunOnlyOnACompleteNodeAndTheNodeSaysWhatIsMissing() throws Exception {
    api.create(
        new DeviceClass(ObjectMeta.named("gpu"), new DeviceClassSpec("gpu", List.of()), null));
    api.create(
        new Workload(
            ObjectMeta.named(WORKLOAD),
            new WorkloadSpec(List.of(group(2)), Optional.empty()),
            null));

    // 1. Both workers run, each after a device check that opened its GPU and every control node.
    var tasks =
        ApiAwait.until(
            api,
            Kinds.TASK,
            "train-w-0 and train-w-1 Running",
            ts -> running(ts, "train-w-0") && running(ts, "train-w-1"));
    for (var name : List.of("train-w-0", "train-w-1")) {
      var t = task(tasks, name).orElseThrow();
      assertThat(t.status().node()).hasValue(NODE);
      var check = t.status().deviceCheck().orElseThrow();
      assertThat(check.passed()).isTrue();
      assertThat(check.opened()).anyMatch(p -> p.matches(".*/dev/nvidia[0-9]+"));
      for (var control : List.of("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools")) {
        assertThat(check.opened()).anyMatch(p -> p.endsWith("/dev/" + control));
      }
      assertThat(ApiAwait.fileContains(agent.config().taskLog(name), "hello")).contains("hello");
    }

    // 2. nvidia-uvm goes away: the node is not DevicesReady and says which node is missing.
    sim.removeNode(ControlNode.NVIDIA_UVM);
    var notReady =
        devicesReady(
                ApiAwait.until(
                    api,
                    Kinds.NODE,
                    "DevicesReady=False",
                    ns -> devicesReady(ns).filter(c -> !c.isTrue()).isPresent()))
            .orElseThrow();
    assertThat(notReady.reason()).isEqualTo("ControlNodeMissing");
    assertThat(notReady.message())
        .contains("missing")
        .contains(sim.nodePath(ControlNode.NVIDIA_UVM).toString());

    // 3. A new GPU task is created but is not allocated to the incomplete node, so it does not run.
    // As an operator's apply: read, change, write; again if a controller's status write came
    // between.
    while (true) {
      var w = api.get(Kinds.WORKLOAD, WORKLOAD).orElseThrow();
      try {
        api.update(
            new Workload(
                w.metadata(), new WorkloadSpec(List.of(group(3)), Optional.empty()), w.status()));
        break;
      } catch (dev.quartermaster.api.error.ApiException e) {
        if (!e.is(dev.quartermaster.api.error.ApiError.Reason.Conflict)) {
          throw e;
        }
      }
    }
    ApiAwait.until(
        api,
        Kinds.RESOURCE_CLAIM,
        "train-w-2-gpu held back with a reason",
        cs ->
            cs.stream()
                .anyMatch(
                    c ->
                        c.metadata().name().equals("train-w-2-gpu")
                            && c.status().allocation().isEmpty()
                            && Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED)
                                .filter(x -> !x.isTrue())
                                .isPresent()));
    var waiting = task(api.list(Kinds.TASK).items(), "train-w-2").orElseThrow();
    assertThat(waiting.status().phase())
        .isIn(TaskPhase.Pending, TaskPhase.Scheduled, TaskPhase.Preparing);

    // 4. The node comes back: DevicesReady within one rescan, then the task is allocated and runs.
    sim.restoreNode(ControlNode.NVIDIA_UVM);
    ApiAwait.until(
        api,
        Kinds.NODE,
        "DevicesReady=True again",
        ns -> devicesReady(ns).filter(Condition::isTrue).isPresent());
    var after =
        ApiAwait.until(api, Kinds.TASK, "train-w-2 Running", ts -> running(ts, "train-w-2"));
    assertThat(task(after, "train-w-2").orElseThrow().status().deviceCheck().orElseThrow().opened())
        .anyMatch(p -> p.endsWith("/dev/nvidia-uvm"));
    assertThat(running(after, "train-w-0")).isTrue();
  }

  /**
   * Issue 11: a worker of a domain workload, with a GPU and its IMEX channel. The allocator picks a
   * channel from the node's slice, the agent prepares it (before, "device channel-0 is not on this
   * node" and the task waited for ever), and the task's device check opened the channel's node.
   */
  @Test
  void aWorkerWithAChannelClaimGetsAChannelAndRunsWithItsNode() throws Exception {
    api.create(
        new DeviceClass(ObjectMeta.named("gpu"), new DeviceClassSpec("gpu", List.of()), null));
    api.create(
        new DeviceClass(
            ObjectMeta.named("channel"), new DeviceClassSpec("channel", List.of()), null));
    var template =
        new TaskTemplate(
            List.of("sh", "-c", "echo $QUARTERMASTER_IMEX_CHANNELS; sleep 30"),
            Map.of(),
            "exec",
            Optional.empty(),
            List.of(),
            Map.of());
    var gpu =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpus", "gpu", 1, List.of())), Optional.empty()));
    // In a compute domain, each task gets a channel claim of its own (<task>-channels).
    api.create(
        new dev.quartermaster.api.domain.ComputeDomain(
            ObjectMeta.named("nvlink"),
            new dev.quartermaster.api.domain.ComputeDomainSpec(1),
            null));
    var group = new WorkerGroup("w", 1, template, List.of(gpu), RestartPolicy.Never);
    api.create(
        new Workload(
            ObjectMeta.named("imex"),
            new WorkloadSpec(List.of(group), Optional.of("nvlink")),
            null));

    var tasks = ApiAwait.until(api, Kinds.TASK, "imex-w-0 Running", ts -> running(ts, "imex-w-0"));

    var claim = api.get(Kinds.RESOURCE_CLAIM, "imex-w-0-channels").orElseThrow();
    var allocated = claim.status().allocation().orElseThrow().devices();
    assertThat(allocated).hasSize(1);
    var device = allocated.getFirst().device();
    assertThat(device).matches("channel-[0-9]+");
    var id = device.substring("channel-".length());
    assertThat(claim.status().prepare().get(NODE).cdiDevices())
        .containsExactly("quartermaster.dev/channel=" + claim.metadata().uid() + "-" + device);
    var check = task(tasks, "imex-w-0").orElseThrow().status().deviceCheck().orElseThrow();
    assertThat(check.passed()).isTrue();
    assertThat(check.opened())
        .anyMatch(p -> p.endsWith("/dev/nvidia-caps-imex-channels/channel" + id));
    assertThat(check.opened()).anyMatch(p -> p.matches(".*/dev/nvidia[0-9]+"));
    assertThat(ApiAwait.fileContains(agent.config().taskLog("imex-w-0"), id)).contains(id);
  }

  @Test
  void aDeletedTaskIsKilledBeforeItsClaimIsUnpreparedAndARestartedAgentDoesNotRerunItsTasks()
      throws Exception {
    api.create(
        new DeviceClass(ObjectMeta.named("gpu"), new DeviceClassSpec("gpu", List.of()), null));
    api.create(
        new Workload(
            ObjectMeta.named(WORKLOAD),
            new WorkloadSpec(List.of(group(1)), Optional.empty()),
            null));
    var first =
        task(
                ApiAwait.until(
                    api, Kinds.TASK, "train-w-0 Running", ts -> running(ts, "train-w-0")),
                "train-w-0")
            .orElseThrow();
    var claim = api.get(Kinds.RESOURCE_CLAIM, "train-w-0-gpu").orElseThrow();

    // Deletion: the process is killed, then the claim is unprepared here, then the controller lets
    // both go.
    api.delete(Kinds.TASK, "train-w-0");
    ApiAwait.until(
        api,
        Kinds.RESOURCE_CLAIM,
        "the first claim gone",
        cs -> cs.stream().noneMatch(c -> c.metadata().uid().equals(claim.metadata().uid())));
    ApiAwait.until(
        api,
        Kinds.TASK,
        "the first task gone",
        ts -> ts.stream().noneMatch(t -> t.metadata().uid().equals(first.metadata().uid())));
    assertThat(
            agent
                .preparer()
                .durable()
                .ledger()
                .snapshot()
                .get(claim.metadata().uid())
                .orElseThrow()
                .holdsDevices())
        .isFalse();

    // The workload replaces it; then the agent restarts: the running task is failed, never run
    // again.
    var second =
        task(
                ApiAwait.until(
                    api,
                    Kinds.TASK,
                    "a new train-w-0 Running",
                    ts ->
                        task(ts, "train-w-0")
                            .filter(
                                t ->
                                    !t.metadata().uid().equals(first.metadata().uid())
                                        && t.status().phase() == TaskPhase.Running)
                            .isPresent()),
                "train-w-0")
            .orElseThrow();
    var config = agent.config();
    agent.close();
    agent = NodeAgent.start(config);
    var failed =
        task(
                ApiAwait.until(
                    api,
                    Kinds.TASK,
                    "train-w-0 Failed after the restart",
                    ts ->
                        task(ts, "train-w-0")
                            .filter(
                                t ->
                                    t.metadata().uid().equals(second.metadata().uid())
                                        && t.status().phase() == TaskPhase.Failed)
                            .isPresent()),
                "train-w-0")
            .orElseThrow();
    assertThat(failed.status().reason()).isEqualTo("AgentRestarted");
    assertThat(failed.status().finishedAt()).isPresent();
  }

  /** A task whose template runs {@code script} with grace period {@code grace}. */
  private static Workload graceful(String name, String script, int grace) {
    var template =
        new TaskTemplate(
            List.of("sh", "-c", script),
            Map.of(),
            "exec",
            Optional.empty(),
            List.of(),
            Map.of(),
            dev.quartermaster.api.workload.DeviceLossPolicy.Continue,
            Optional.of(grace));
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(
            List.of(new WorkerGroup("w", 1, template, List.of(), RestartPolicy.Never)),
            Optional.empty()),
        null);
  }

  /**
   * A stopped task gets SIGTERM first: one that handles it ends by itself (well inside its long
   * grace period, or the test would wait for it); one that ignores it is killed once its grace
   * period is over.
   */
  @Test
  void aDeletedTaskGetsSigtermThenSigkillAfterItsGracePeriod() throws Exception {
    api.create(
        graceful(
            "polite",
            "trap 'echo got TERM; exit 0' TERM; echo started; while true; do sleep 0.1; done",
            3600));
    api.create(
        graceful(
            "stubborn",
            "trap 'echo ignoring TERM' TERM; echo started; while true; do sleep 0.1; done",
            // Long enough for a loaded machine to run the trap before the SIGKILL (1 s was not).
            5));
    ApiAwait.until(
        api,
        Kinds.TASK,
        "both Running",
        ts -> running(ts, "polite-w-0") && running(ts, "stubborn-w-0"));
    ApiAwait.fileContains(agent.config().taskLog("polite-w-0"), "started");
    ApiAwait.fileContains(agent.config().taskLog("stubborn-w-0"), "started");

    api.delete(Kinds.TASK, "polite-w-0");
    api.delete(Kinds.TASK, "stubborn-w-0");

    ApiAwait.taskOutputContains(agent.config(), "polite-w-0", "got TERM");
    ApiAwait.taskOutputContains(agent.config(), "stubborn-w-0", "ignoring TERM");
    // The workload replaces each; the old incarnations are gone: ended, and killed.
    var before = api.list(Kinds.TASK).items();
    ApiAwait.until(
        api,
        Kinds.TASK,
        "both first incarnations gone",
        ts ->
            ts.stream()
                .noneMatch(
                    t ->
                        before.stream()
                            .anyMatch(
                                b ->
                                    b.metadata().uid().equals(t.metadata().uid())
                                        && b.metadata().isDeleting())));
  }
}
