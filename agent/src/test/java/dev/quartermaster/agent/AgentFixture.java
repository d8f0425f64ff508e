package dev.quartermaster.agent;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.DeviceLossPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One real agent over an in-process API (SQLite + ObjectRegistry) on a simulated device root with
 * two GPUs, and builders for the claims and tasks the agent-level tests hand it (no control plane:
 * claims come allocated, tasks come scheduled).
 */
final class AgentFixture implements AutoCloseable {
  static final String NODE = "node-1";

  final SqliteStore store;
  final ApiClient api;
  final SimulatedDeviceRoot sim;
  final NodeAgent agent;

  AgentFixture(Path tmp) throws Exception {
    store = SqliteStore.open(tmp.resolve("store.db"));
    // Claims are bound by hand here (no allocator): the allocation record's guard is tested in
    // store and sim.
    api = ObjectRegistry.withoutCrossObjectRules(store, new SystemEnv());
    sim = SimulatedDeviceRoot.builder(tmp.resolve("devroot")).gpus(2).build();
    var config =
        NodeAgentConfig.of(
                api,
                NODE,
                tmp.resolve("state"),
                DeviceRoot.at(sim.root()),
                tmp.resolve("cdi"),
                new SystemEnv())
            .withBootId("fixture-boot")
            .withRescanPeriod(Duration.ofSeconds(1))
            .withHeartbeat(Duration.ofSeconds(1));
    agent = NodeAgent.start(config);
  }

  /** A claim already allocated to {@code device} on this node. */
  static ResourceClaim claim(String name, String device) {
    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpus", "gpu", 1, List.of())), Optional.empty());
    var status =
        ResourceClaimStatus.EMPTY.withAllocation(
            new Allocation(NODE, List.of(new Allocation.AllocatedDevice("gpus", device))));
    return new ResourceClaim(ObjectMeta.named(name), spec, status);
  }

  /** A task already scheduled to this node, running {@code command} with the exec runtime. */
  static Task task(String name, List<String> claims, List<String> command) {
    return task(name, claims, command, DeviceLossPolicy.Continue);
  }

  static Task task(
      String name, List<String> claims, List<String> command, DeviceLossPolicy onDeviceLoss) {
    var spec =
        new TaskSpec(
            Optional.of(NODE),
            command,
            Map.of(),
            claims,
            List.of(),
            "exec",
            Optional.empty(),
            0,
            onDeviceLoss);
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
    return new Task(ObjectMeta.named(name), spec, status);
  }

  static Optional<PrepareState> prepareState(Optional<ResourceClaim> c) {
    return c.flatMap(x -> Optional.ofNullable(x.status().prepare().get(NODE)));
  }

  static Predicate<Optional<ResourceClaim>> prepareIs(PrepareState.Phase phase) {
    return c -> prepareState(c).filter(s -> s.phase() == phase).isPresent();
  }

  static Predicate<Optional<Task>> phaseIs(TaskPhase phase) {
    return t -> t.filter(x -> x.status().phase() == phase).isPresent();
  }

  <T extends ApiObject> T await(Kind<T> kind, String name, Predicate<Optional<T>> condition)
      throws Exception {
    return ApiAwait.object(api, kind, name, condition).orElseThrow();
  }

  <T extends ApiObject> void awaitGone(Kind<T> kind, String name) throws Exception {
    ApiAwait.object(api, kind, name, Optional::isEmpty);
  }

  boolean holds(String claimUid) {
    return agent
        .preparer()
        .durable()
        .ledger()
        .snapshot()
        .get(claimUid)
        .filter(e -> e.holdsDevices())
        .isPresent();
  }

  Task awaitTask(String name, Predicate<Optional<Task>> condition) throws Exception {
    return await(Kinds.TASK, name, condition);
  }

  @Override
  public void close() throws Exception {
    stop(agent);
    store.close();
  }

  /**
   * Closes {@code agent} and stops its domain helpers, as {@code qm up} does: a real agent leaves
   * them running for the next agent (I2), so a test that ends without this leaves a process behind.
   */
  static void stop(NodeAgent agent) throws java.io.IOException {
    agent.close();
    dev.quartermaster.agent.effects.OsHelperProcesses.stopAll(
        agent.config().stateDir().resolve("helpers"));
  }
}
