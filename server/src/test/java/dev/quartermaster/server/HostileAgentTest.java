package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.event.EventLog;
import dev.quartermaster.api.event.EventSpec;
import dev.quartermaster.api.event.EventStatus;
import dev.quartermaster.api.event.EventType;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.auth.AccessRule;
import dev.quartermaster.server.auth.NodeScopedAccess;
import dev.quartermaster.server.auth.Principal;
import dev.quartermaster.server.auth.TokenAuthenticator;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent with node a's credential, over HTTP against the real registry, tries to write what is
 * not its own, kind by kind, including by naming itself in another node's object (the stored object
 * is judged too). Every attempt is a 403 naming the rule, or a 409 for a stale revision or a change
 * of a task's phase that no writer may make (naming that rule), and the store's revision does not
 * move; what an agent legitimately writes still succeeds.
 */
class HostileAgentTest {
  private static final String ADMIN = "admin-secret-0123456789";
  private static final String NODE_A = "node-a-secret-0123456789";

  @TempDir Path dataDir;
  SqliteStore store;
  TestServer server;
  HttpApiClient admin;
  HttpApiClient agent;

  void start(AccessRule rule) throws Exception {
    store = SqliteStore.open(dataDir.resolve("store.db"));
    var registry = new ObjectRegistry(store, new SystemEnv());
    var tokens = TokenAuthenticator.admin(ADMIN).with(NODE_A, Principal.node("a"));
    server =
        TestServer.start(registry, dataDir, c -> c.withAuthenticator(tokens).withAccessRule(rule));
    admin = new HttpApiClient(server.server.baseUri(), ADMIN);
    agent = new HttpApiClient(server.server.baseUri(), NODE_A);
  }

  /**
   * The rule as it was: it judged only the request body, so naming itself in another node's
   * DeviceSlice was enough to take it over.
   */
  static final AccessRule BODY_ONLY =
      (who, access) -> {
        if (!(who.role() instanceof Principal.NodeAgent(var node)) || !access.verb().writes()) {
          return Optional.empty();
        }
        boolean own =
            (access.kind().equals(Kinds.NODE) && access.name().filter(node::equals).isPresent())
                || (access.kind().equals(Kinds.DEVICE_SLICE)
                    && access
                        .object()
                        .filter(o -> o instanceof DeviceSlice ds && ds.spec().node().equals(node))
                        .isPresent());
        return own ? Optional.empty() : Optional.of("node " + node + " may not write that");
      };

  @Test
  void theRuleThatJudgedOnlyTheBodyIsCaught() throws Exception {
    start(BODY_ONLY);
    assertThat(hostileWrites()).contains("another node's slice, naming itself in it: accepted");
  }

  @AfterEach
  void stop() throws Exception {
    if (agent == null) {
      return;
    }
    agent.close();
    admin.close();
    server.close();
    store.close();
  }

  @Test
  void aHostileAgentWritesNothingThatIsNotItsOwn() throws Exception {
    start(new NodeScopedAccess());
    var refusals = hostileWrites();
    assertThat(refusals).as("every hostile write refused with 403 naming the rule").isEmpty();
  }

  /**
   * Sets up two nodes' objects as admin, then tries every hostile write as node a; what got through
   * or was refused wrongly.
   */
  private List<String> hostileWrites() {
    for (var n : List.of("a", "b")) {
      admin.create(new Node(ObjectMeta.named(n), NodeSpec.EMPTY, NodeStatus.EMPTY));
      admin.create(
          new DeviceSlice(ObjectMeta.named(n), new DeviceSliceSpec(n, List.of(gpu())), null));
    }
    var onB = allocate(admin.create(claim("on-b")), "b");
    var onA = allocate(admin.create(claim("on-a")), "a");
    var taskB = admin.create(task("task-b", "b"));
    var taskA = admin.create(task("task-a", "a"));
    var volume =
        admin.create(
            new Volume(
                ObjectMeta.named("vol"),
                new dev.quartermaster.api.volume.VolumeSpec(
                    "hostpath.csi.quartermaster.dev",
                    1L << 30,
                    dev.quartermaster.api.volume.VolumeSpec.AccessMode.MultiNodeMultiWriter,
                    Map.of()),
                null));
    volume =
        admin.updateStatus(
            volume.withStatus(
                volume
                    .status()
                    .withClaims(
                        List.of(
                            new VolumeClaim(
                                "task-a",
                                taskA.metadata().uid(),
                                "a",
                                VolumeClaim.Mode.Write,
                                VolumeClaim.State.Taken,
                                true,
                                Map.of()),
                            new VolumeClaim(
                                "task-b",
                                taskB.metadata().uid(),
                                "b",
                                VolumeClaim.Mode.Read,
                                VolumeClaim.State.Taken,
                                true,
                                Map.of())))));
    var nodeB = admin.get(Kinds.NODE, "b").orElseThrow();
    var nodeA = admin.get(Kinds.NODE, "a").orElseThrow();
    var sliceB = admin.get(Kinds.DEVICE_SLICE, "b").orElseThrow();
    var v = volume;

    var refusals = new ArrayList<String>();
    Supplier<Long> revision = store::currentRevision;
    long before = revision.get();
    refuse(refusals, "another node's status", () -> agent.updateStatus(nodeB));
    refuse(
        refusals,
        "its own node's spec (cordon and fence are the operator's)",
        () -> agent.update(new Node(nodeA.metadata(), new NodeSpec(false, true), nodeA.status())));
    refuse(
        refusals,
        "a node of another name",
        () -> agent.create(new Node(ObjectMeta.named("c"), NodeSpec.EMPTY, null)));
    refuse(
        refusals,
        "another node's slice, naming itself in it",
        () ->
            agent.update(
                new DeviceSlice(sliceB.metadata(), new DeviceSliceSpec("a", List.of()), null)));
    refuse(
        refusals,
        "a slice for another node",
        () ->
            agent.create(
                new DeviceSlice(
                    ObjectMeta.named("c"), new DeviceSliceSpec("b", List.of(gpu())), null)));
    refuse(
        refusals,
        "the prepare state of a claim on another node",
        () -> agent.updateStatus(onB.withStatus(withPrepare(onB.status(), "a"))));
    refuse(
        refusals,
        "another node's prepare state of its own claim",
        () -> agent.updateStatus(onA.withStatus(withPrepare(onA.status(), "b"))));
    refuse(
        refusals,
        "the allocation of its own claim",
        () -> agent.updateStatus(onA.withStatus(allocatedTo("b"))));
    refuse(
        refusals,
        "another finalizer on its own claim",
        () ->
            agent.update(
                onA.withMetadata(
                    onA.metadata().withFinalizers(List.of("quartermaster.dev/agent-b")))));
    refuse(
        refusals,
        "the spec of its own claim",
        () ->
            agent.update(
                new ResourceClaim(
                    onA.metadata(),
                    new ResourceClaimSpec(
                        List.of(new DeviceRequest("g", "gpu", 2, List.of())), Optional.empty()),
                    onA.status())));
    refuse(refusals, "a task on another node", () -> agent.updateStatus(taskB));
    refuse(refusals, "a new task", () -> agent.create(task("mine", "a")));
    refuse(
        refusals,
        "another node's claim of a volume",
        () ->
            agent.updateStatus(
                v.withStatus(v.status().withClaims(List.of(v.status().claims().getFirst())))));
    var own = v.status().claims().getFirst();
    var other = v.status().claims().getLast();
    refuse(
        refusals,
        "a writer claim of its own node for a task that was never granted one",
        () ->
            agent.updateStatus(
                v.withStatus(
                    v.status()
                        .withClaims(
                            List.of(
                                own,
                                other,
                                new VolumeClaim(
                                    "x",
                                    "u",
                                    "a",
                                    VolumeClaim.Mode.Write,
                                    VolumeClaim.State.Taken,
                                    false,
                                    Map.of()))))));
    refuse(
        refusals,
        "its own claim removed",
        () -> agent.updateStatus(v.withStatus(v.status().withClaims(List.of(other)))));
    refuse(
        refusals,
        "its own claim's mode changed",
        () ->
            agent.updateStatus(
                v.withStatus(
                    v.status()
                        .withClaims(
                            List.of(
                                new VolumeClaim(
                                    own.task(),
                                    own.taskUid(),
                                    own.node(),
                                    VolumeClaim.Mode.Read,
                                    own.state(),
                                    own.attached(),
                                    own.publishContext()),
                                other)))));
    refuse(
        refusals,
        "its own claim let go past NodeDetached",
        () ->
            agent.updateStatus(
                v.withStatus(
                    v.status()
                        .withClaims(
                            List.of(
                                new VolumeClaim(
                                    own.task(),
                                    own.taskUid(),
                                    own.node(),
                                    own.mode(),
                                    VolumeClaim.State.ControllerDetached,
                                    own.attached(),
                                    own.publishContext()),
                                other)))));
    refuse(
        refusals,
        "another node's claim marked released",
        () ->
            agent.updateStatus(
                v.withStatus(
                    v.status()
                        .withClaims(
                            List.of(
                                own,
                                VolumeClaimMachine.apply(other, new VolumeClaimEvent.NodeReleased())
                                    .orThrow())))));
    refuse(
        refusals,
        "a release error said on another node's claim",
        () ->
            agent.updateStatus(
                v.withStatus(
                    v.status()
                        .withClaims(
                            List.of(
                                own,
                                VolumeClaimMachine.apply(
                                        other,
                                        new VolumeClaimEvent.ReleaseFailed(
                                            "NodeUnstageVolume: FAILED_PRECONDITION"))
                                    .orThrow())))));
    refuse(
        refusals,
        "its own claim's mode changed along with a release error",
        () ->
            agent.updateStatus(
                v.withStatus(
                    v.status()
                        .withClaims(
                            List.of(
                                new VolumeClaim(
                                    own.task(),
                                    own.taskUid(),
                                    own.node(),
                                    VolumeClaim.Mode.Read,
                                    own.state(),
                                    own.attached(),
                                    own.publishContext(),
                                    "failing"),
                                other)))));
    refuse(
        refusals,
        "a device class",
        () ->
            agent.create(
                new DeviceClass(
                    ObjectMeta.named("x"), new DeviceClassSpec("gpu", List.of()), null)));
    refuse(
        refusals,
        "a compute domain",
        () ->
            agent.create(new ComputeDomain(ObjectMeta.named("d"), new ComputeDomainSpec(1), null)));
    refuse(
        refusals,
        "its allocation record",
        () -> agent.create(new NodeAllocation(ObjectMeta.named("a"), null, null)));
    // The queue kinds are the admission controller's and the operator's: an agent that could write
    // a
    // ledger could admit past any quota.
    refuse(
        refusals,
        "a queue",
        () ->
            agent.create(new dev.quartermaster.api.queue.Queue(ObjectMeta.named("q"), null, null)));
    refuse(
        refusals,
        "a priority class",
        () ->
            agent.create(
                new dev.quartermaster.api.queue.PriorityClass(ObjectMeta.named("p"), null, null)));
    refuse(
        refusals,
        "a quota ledger",
        () ->
            agent.create(
                new dev.quartermaster.api.queue.QuotaLedger(ObjectMeta.named("q"), null, null)));
    refuse(refusals, "a delete of its own node", () -> agent.delete(Kinds.NODE, "a"));
    refuse(refusals, "a delete of a claim", () -> agent.delete(Kinds.RESOURCE_CLAIM, "on-a"));
    if (!refusals.isEmpty()) {
      return refusals;
    }
    assertThat(revision.get()).as("nothing written").isEqualTo(before);

    var stale =
        catchThrowableOfType(
            ApiException.class,
            () -> agent.updateStatus(withRevision(nodeA, nodeA.metadata().revision() - 1)));
    assertThat(stale.error().code()).isEqualTo(409);

    // What an agent does write still goes through.
    agent.updateStatus(nodeA);
    agent.update(admin.get(Kinds.DEVICE_SLICE, "a").orElseThrow());
    var prepared = agent.updateStatus(onA.withStatus(withPrepare(onA.status(), "a")));
    agent.update(
        prepared.withMetadata(
            prepared.metadata().withFinalizers(List.of(new AgentFinalizer("a").name()))));
    agent.updateStatus(taskA.withStatus(TaskStatus.EMPTY));

    // The task's phase machine holds for its own node's agent too (TaskPhaseGuard): 409 naming the
    // rule.
    var pending = admin.get(Kinds.TASK, "task-a").orElseThrow();
    long unmoved = revision.get();
    refuseMove(
        refusals,
        "its own task run unscheduled",
        () -> agent.updateStatus(pending.withStatus(phase(TaskPhase.Running))),
        "Pending → Running refused: a task runs only once scheduled");
    assertThat(revision.get()).as("nothing written").isEqualTo(unmoved);
    var scheduled = admin.updateStatus(pending.withStatus(phase(TaskPhase.Scheduled)));
    var done = agent.updateStatus(scheduled.withStatus(phase(TaskPhase.Succeeded)));
    long finished = revision.get();
    refuseMove(
        refusals,
        "its own finished task run again",
        () -> agent.updateStatus(done.withStatus(phase(TaskPhase.Running))),
        "Succeeded → Running refused: a finished task never runs again");
    assertThat(revision.get()).as("nothing written").isEqualTo(finished);
    var said =
        agent.updateStatus(
            v.withStatus(
                v.status()
                    .withClaims(
                        List.of(
                            VolumeClaimMachine.apply(
                                    own,
                                    new VolumeClaimEvent.ReleaseFailed(
                                        "NodeUnstageVolume: FAILED_PRECONDITION: still published"))
                                .orThrow(),
                            other))));
    agent.updateStatus(
        said.withStatus(
            said.status()
                .withClaims(
                    List.of(
                        VolumeClaimMachine.apply(
                                said.status().claims().getFirst(),
                                new VolumeClaimEvent.NodeReleased())
                            .orThrow(),
                        other))));
    return refusals;
  }

  /**
   * The events an agent writes (through the same {@link EventLog} it records with) are about its
   * Node, its tasks and the volumes its tasks hold; an event about another node's object, about no
   * object, or rewritten to be about another object, is refused naming the rule (issue 43, item
   * 15): a 404, since as the node sees it there is no such object of its own.
   */
  @Test
  void anAgentWritesEventsOnlyAboutItsOwnNodesObjects() throws Exception {
    start(new NodeScopedAccess());
    for (var n : List.of("a", "b")) {
      admin.create(new Node(ObjectMeta.named(n), NodeSpec.EMPTY, NodeStatus.EMPTY));
    }
    var taskA = admin.create(task("task-a", "a"));
    var taskB = admin.create(task("task-b", "b"));
    var onA = allocate(admin.create(claim("on-a")), "a");
    var onB = allocate(admin.create(claim("on-b")), "b");
    var volume = admin.create(volume("vol-a"));
    volume =
        admin.updateStatus(
            volume.withStatus(
                volume
                    .status()
                    .withClaims(
                        List.of(
                            new VolumeClaim(
                                "task-a",
                                taskA.metadata().uid(),
                                "a",
                                VolumeClaim.Mode.Write,
                                VolumeClaim.State.Taken,
                                true,
                                Map.of())))));
    var elsewhere = admin.create(volume("vol-b"));
    var nodeA = admin.get(Kinds.NODE, "a").orElseThrow();
    var nodeB = admin.get(Kinds.NODE, "b").orElseThrow();
    var cls =
        admin.create(
            new DeviceClass(ObjectMeta.named("x"), new DeviceClassSpec("gpu", List.of()), null));

    // What the agent itself records, written as it writes them.
    var log = new EventLog(agent, java.time.Instant::now, (delay, task) -> {});
    var recorder = log.recorder("agent/a");
    recorder.normal(nodeA, "DevicesReady", "4 GPUs");
    recorder.normal(taskA, "Started", "pid 42");
    recorder.warning(taskA, "DeviceNodeMissing", "/dev/nvidia0");
    recorder.warning(volume, "VolumeReleaseFailed", "releasing on a failed");
    recorder.normal(onA, "Prepared", "gpu-0");
    log.flush();
    recorder.normal(taskA, "Started", "pid 43"); // a repetition: an update of the stored event
    log.flush();
    assertThat(log.dropped()).as("the agent's own events dropped").isZero();
    var written = admin.list(Kinds.EVENT).items();
    assertThat(written)
        .extracting(e -> e.spec().involved().toString())
        .containsExactlyInAnyOrder(
            "node/a", "task/task-a", "task/task-a", "volume/vol-a", "resourceclaim/on-a");
    assertThat(written)
        .filteredOn(e -> e.spec().reason().equals("Started"))
        .singleElement()
        .satisfies(e -> assertThat(e.spec().count()).isEqualTo(2));

    var refusals = new ArrayList<String>();
    long before = store.currentRevision();
    for (var about : List.<ApiObject>of(nodeB, taskB, onB, elsewhere, cls)) {
      refuseEvent(refusals, about.ref() + "", () -> agent.create(event(InvolvedObject.of(about))));
    }
    refuseEvent(
        refusals,
        "a task that does not exist",
        () -> agent.create(event(new InvolvedObject("Task", "ghost"))));
    var own = written.stream().filter(e -> e.spec().reason().equals("Started")).findFirst();
    refuseEvent(
        refusals,
        "its own event rewritten to be about another node",
        () ->
            agent.update(
                own.orElseThrow()
                    .withSpec(
                        new EventSpec(
                            InvolvedObject.of(nodeB),
                            EventType.Warning,
                            "Started",
                            "forged",
                            "agent/a",
                            3,
                            own.get().spec().firstSeen(),
                            own.get().spec().lastSeen()))));
    assertThat(refusals).as("events about objects not of node a").isEmpty();
    assertThat(store.currentRevision()).as("nothing written").isEqualTo(before);

    // Through its recorder, an event about another node's task is dropped, the others kept.
    recorder.normal(taskB, "Started", "not mine");
    log.flush();
    assertThat(log.dropped()).isEqualTo(1);
  }

  private static Event event(InvolvedObject about) {
    var at = java.time.Instant.parse("2026-01-01T00:00:00Z");
    return new Event(
        ObjectMeta.named("forged-" + about.name().toLowerCase(java.util.Locale.ROOT)),
        new EventSpec(about, EventType.Warning, "Forged", "a lie", "agent/a", 1, at, at),
        EventStatus.EMPTY);
  }

  private static void refuseEvent(List<String> refusals, String what, Runnable write) {
    try {
      write.run();
      refusals.add(what + ": accepted");
    } catch (ApiException e) {
      // Not found, as a node sees it: no such object of its own (which says nothing of others').
      if (e.error().code() != 404
          || !e.getMessage().contains("which is not an object of node a")
          || !e.getMessage()
              .contains("an agent records events only about its own node's objects")) {
        refusals.add(what + ": " + e.error().code() + " " + e.getMessage());
      }
    }
  }

  private static Volume volume(String name) {
    return new Volume(
        ObjectMeta.named(name),
        new dev.quartermaster.api.volume.VolumeSpec(
            "hostpath.csi.quartermaster.dev",
            1L << 30,
            dev.quartermaster.api.volume.VolumeSpec.AccessMode.MultiNodeMultiWriter,
            Map.of()),
        null);
  }

  /** As the allocator does: the record first, then the claim. */
  private ResourceClaim allocate(ResourceClaim c, String node) {
    admin.create(
        new NodeAllocation(
            ObjectMeta.named(node),
            new dev.quartermaster.api.allocation.NodeAllocationSpec(
                Map.of(
                    "gpu-0",
                    new dev.quartermaster.api.allocation.DeviceHolder(
                        c.metadata().name(), c.metadata().uid()))),
            null));
    return admin.updateStatus(c.withStatus(allocatedTo(node)));
  }

  private static void refuse(List<String> refusals, String what, Runnable write) {
    try {
      write.run();
      refusals.add(what + ": accepted");
    } catch (ApiException e) {
      if (e.error().code() != 403 || !e.getMessage().contains("node a may not")) {
        refusals.add(what + ": " + e.error().code() + " " + e.getMessage());
      }
    }
  }

  private static void refuseMove(List<String> refusals, String what, Runnable write, String rule) {
    try {
      write.run();
      refusals.add(what + ": accepted");
    } catch (ApiException e) {
      if (e.error().code() != 409 || !e.getMessage().contains(rule)) {
        refusals.add(what + ": " + e.error().code() + " " + e.getMessage());
      }
    }
  }

  private static TaskStatus phase(TaskPhase phase) {
    return new TaskStatus(
        phase,
        "",
        "",
        Optional.of("a"),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of());
  }

  private static <T extends ApiObject> T withRevision(T o, long revision) {
    @SuppressWarnings("unchecked")
    var t = (T) o.withMetadata(o.metadata().withRevision(revision));
    return t;
  }

  private static Device gpu() {
    return new Device("gpu-0", "gpu", Map.of(), Device.Health.Healthy, "");
  }

  private static ResourceClaim claim(String name) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("g", "gpu", 1, List.of())), Optional.empty()),
        null);
  }

  private static ResourceClaimStatus allocatedTo(String node) {
    return ResourceClaimStatus.EMPTY.withAllocation(
        new Allocation(node, List.of(new Allocation.AllocatedDevice("g", "gpu-0"))));
  }

  private static ResourceClaimStatus withPrepare(ResourceClaimStatus s, String node) {
    var prepare = new java.util.HashMap<>(s.prepare());
    prepare.put(
        node, new PrepareState(PrepareState.Phase.Prepared, "", List.of(), Optional.empty()));
    return new ResourceClaimStatus(s.allocation(), s.reservedFor(), prepare, s.conditions());
  }

  private static Task task(String name, String node) {
    return new Task(
        ObjectMeta.named(name),
        new TaskSpec(
            Optional.of(node),
            List.of("train"),
            Map.of(),
            List.of(),
            List.of(),
            "exec",
            Optional.empty()),
        null);
  }
}
