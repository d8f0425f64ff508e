package dev.quartermaster.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.cdi.InMemoryClaimSpecs;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.SimulatedLedgerFile;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.effects.InMemoryHelperProcesses;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.agent.sync.AgentContext;
import dev.quartermaster.agent.tasks.ClaimUse;
import dev.quartermaster.agent.tasks.NaiveClaimRelease;
import dev.quartermaster.agent.tasks.TestRuns;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hole 1 (I2) at the claim sync's depth, deterministically: a claim deleted, deallocated or
 * re-created under its running task. The same steps run with the real seam ({@link ClaimUse}, told
 * of the task's process as the task sync tells it) and with a naive answer ({@link
 * NaiveClaimRelease#claimObjectOnly}: unprepare whenever the claim object says so); after each step
 * the test checks I2 (the task's claim is still held in the ledger while it runs) and I1 on the
 * node (no second claim is prepared on its GPU meanwhile). The naive rule must be caught.
 */
class ClaimInUseTest {
  private static final String NODE = "node-1";
  private static final String GPU = "gpu-0";

  enum Rule {
    REAL,
    NAIVE
  }

  /** How the claim object changes under the running task. */
  enum Change {
    DELETED,
    DEALLOCATED,
    MOVED,
    RECREATED
  }

  @TempDir Path tmp;
  private SqliteStore store;
  private ApiClient api;
  private ClaimPreparer preparer;

  /** The "task processes" that run: task name → the claim it was started with. */
  private final Map<String, ClaimRef> running = new HashMap<>();

  /** The tasks as cached: task-a, live. */
  private final Task taskA =
      new Task(ObjectMeta.named("task-a").withUid("task-a-uid"), TaskSpec.EMPTY, TaskStatus.EMPTY);

  private final ClaimUse use =
      new ClaimUse(NODE, name -> Optional.of(taskA).filter(t -> name.equals("task-a")), name -> {});
  private final List<String> violations = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    var env = new DeterministicEnv(1);
    store = SqliteStore.open(tmp.resolve("store.db"));
    // Claims are bound by hand here (no allocator): the allocation record's guard is tested in
    // store and sim.
    api = ObjectRegistry.withoutCrossObjectRules(store, env);
    var gpuNode =
        java.nio.file.Files.createFile(
            tmp.resolve("nvidia0")); // a regular-file stand-in: prepare checks it
    var inventory =
        new Inventory(
            "sim",
            List.of(
                new DiscoveredGpu(
                    GPU,
                    0,
                    "GPU-0",
                    "sim",
                    OptionalLong.of(1),
                    0,
                    "0000:18:00.0",
                    new VerifiedNode("/dev/nvidia0", gpuNode, new DeviceNumber(195, 0)))),
            List.of());
    var durable =
        DurableLedger.open(
                new SimulatedLedgerFile(), "boot", env, ClaimLedger.DEFAULT_TOMBSTONE_TTL)
            .ledger();
    preparer =
        new ClaimPreparer(
            durable,
            new InMemoryClaimSpecs(),
            new EffectsReconciler(new InMemoryHelperProcesses(), domains -> {}),
            () -> inventory,
            () -> new ControlNodeStatus.Complete(List.of(), List.of()));
  }

  @AfterEach
  void tearDown() throws Exception {
    store.close();
  }

  private ClaimSync sync(Rule rule) {
    var release = rule == Rule.NAIVE ? NaiveClaimRelease.claimObjectOnly(NODE) : use;
    return new ClaimSync(
        AgentContext.withoutEvents(api, NODE, new DeterministicEnv(2)),
        preparer,
        name -> api.get(Kinds.RESOURCE_CLAIM, name),
        name -> {},
        release);
  }

  private static ResourceClaim claim(String name, String node) {
    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpus", "gpu", 1, List.of())), Optional.empty());
    var status =
        ResourceClaimStatus.EMPTY.withAllocation(
            new Allocation(node, List.of(new Allocation.AllocatedDevice("gpus", GPU))));
    return new ResourceClaim(ObjectMeta.named(name), spec, status);
  }

  private Optional<PrepareState> state(String name) {
    return api.get(Kinds.RESOURCE_CLAIM, name)
        .flatMap(c -> Optional.ofNullable(c.status().prepare().get(NODE)));
  }

  /** I2 for every running task, and I1 on this node's GPU. */
  private void check(String step) {
    var snapshot = preparer.durable().ledger().snapshot();
    running.forEach(
        (task, ref) -> {
          if (snapshot.get(ref.uid()).filter(e -> e.holdsDevices()).isEmpty()) {
            violations.add(
                "I2: after "
                    + step
                    + ", task "
                    + task
                    + " runs but its claim "
                    + ref
                    + " is not held");
          }
        });
    // The GPU's users: the claims prepared for it and the claims of processes that still run on it.
    var holders =
        new java.util.TreeSet<String>(running.values().stream().map(ClaimRef::uid).toList());
    snapshot.holding().stream()
        .filter(e -> e.devices().contains(GPU))
        .forEach(e -> holders.add(e.claim().uid()));
    if (holders.size() > 1) {
      violations.add("I1: after " + step + ", " + GPU + " is used by claims " + holders);
    }
  }

  private List<String> scenario(Rule rule, Change change) throws Exception {
    var sync = sync(rule);
    var a = api.create(claim("claim-a", NODE));
    sync.sync("claim-a");
    assertThat(state("claim-a").orElseThrow().phase()).isEqualTo(PrepareState.Phase.Prepared);
    var refA = new ClaimRef(a.metadata().uid(), "claim-a");
    running.put("task-a", refA);
    var process = TestRuns.start(use, "task-a", "task-a-uid", List.of(refA));
    TestRuns.pass(process);

    var current = api.get(Kinds.RESOURCE_CLAIM, "claim-a").orElseThrow();
    switch (change) {
      case DELETED -> api.delete(Kinds.RESOURCE_CLAIM, "claim-a");
      case DEALLOCATED ->
          api.updateStatus(
              current.withStatus(
                  new ResourceClaimStatus(
                      Optional.empty(),
                      current.status().reservedFor(),
                      current.status().prepare(),
                      current.status().conditions())));
      case MOVED ->
          api.updateStatus(
              current.withStatus(
                  current
                      .status()
                      .withAllocation(
                          new Allocation(
                              "node-2", List.of(new Allocation.AllocatedDevice("gpus", GPU))))));
      case RECREATED -> {
        api.update(
            current.withMetadata(
                current.metadata().withFinalizers(List.of()))); // force it out of the way
        api.delete(Kinds.RESOURCE_CLAIM, "claim-a");
        api.create(claim("claim-a", NODE));
      }
    }
    sync.sync("claim-a");
    check(change + " of claim-a");
    if (change == Change.DELETED && rule == Rule.REAL) {
      assertThat(api.get(Kinds.RESOURCE_CLAIM, "claim-a"))
          .as("deletion waits for the task")
          .isPresent();
      assertThat(state("claim-a").orElseThrow().reason())
          .isEqualTo("in use by task task-a (running); unprepared when it stops");
    }
    // A second claim for the same GPU (the re-created claim-a is one) must wait while task-a runs.
    var second = change == Change.RECREATED ? "claim-a" : "claim-b";
    if (change != Change.RECREATED) {
      api.create(claim("claim-b", NODE));
    }
    sync.sync(second);
    check(second + "'s prepare");
    if (rule == Rule.REAL) {
      assertThat(state(second).orElseThrow().phase()).isEqualTo(PrepareState.Phase.Pending);
      assertThat(state(second).orElseThrow().reason()).contains(GPU).contains(refA.uid());
    }

    // The process stops: now the first claim-a is let go, and the second claim gets the GPU.
    running.remove("task-a");
    TestRuns.exit(process);
    sync.sync("claim-a");
    sync.sync(second);
    check("task-a stopped");
    assertThat(preparer.durable().ledger().snapshot().get(refA.uid()).filter(e -> e.holdsDevices()))
        .isEmpty();
    assertThat(state(second).orElseThrow().phase()).isEqualTo(PrepareState.Phase.Prepared);
    if (change == Change.DELETED) {
      assertThat(api.get(Kinds.RESOURCE_CLAIM, "claim-a")).isEmpty();
    }
    return violations;
  }

  @ParameterizedTest
  @EnumSource(Change.class)
  void aClaimInUseStaysPreparedUntilItsTaskStops(Change change) throws Exception {
    assertThat(scenario(Rule.REAL, change)).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Change.class)
  void theNaiveRuleIsCaught(Change change) throws Exception {
    assertThat(scenario(Rule.NAIVE, change))
        .anyMatch(v -> v.startsWith("I2:"))
        .anyMatch(v -> v.startsWith("I1:"));
  }
}
