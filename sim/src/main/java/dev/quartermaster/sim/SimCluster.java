package dev.quartermaster.sim;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.DeviceSliceStatus;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A simulated cluster for scenarios: one seed, one {@link DeterministicEnv}, one {@link SimStore},
 * and the real {@link ObjectRegistry} over it as the API. Helpers publish nodes and devices the way
 * agents would.
 */
public final class SimCluster {
  private final DeterministicEnv env;
  private final SimStore store;
  private final ObjectRegistry api;

  public SimCluster(long seed, WatchFaults faults) {
    this(seed, faults, Rules.ALL);
  }

  /** Which of the store's rules across objects a cluster's registry keeps. */
  public enum Rules {
    ALL,
    NONE,
    /** All but the quota guard: the naive admitter's store. */
    NO_QUOTA_GUARD,
    /** All rules, blind to shared counters: the naive MIG placement's store. */
    NO_SHARED_COUNTERS,
    /** All but the owner guard: a store that takes an object made for an owner that is gone. */
    NO_OWNER_GUARD
  }

  public SimCluster(long seed, WatchFaults faults, Rules rules) {
    this.env = new DeterministicEnv(seed);
    this.store = new SimStore(env, faults);
    this.api =
        switch (rules) {
          case ALL -> new ObjectRegistry(store, env);
          case NONE -> ObjectRegistry.withoutCrossObjectRules(store, env);
          case NO_QUOTA_GUARD -> ObjectRegistry.withoutQuotaGuard(store, env);
          case NO_SHARED_COUNTERS -> ObjectRegistry.withoutSharedCounters(store, env);
          case NO_OWNER_GUARD -> ObjectRegistry.withoutOwnerGuard(store, env);
        };
  }

  /**
   * A cluster whose store takes any valid write, without the rules that keep one device from being
   * held by two live claims: the naive variant, for tests that show what those rules prevent.
   */
  public static SimCluster withoutCrossObjectRules(long seed, WatchFaults faults) {
    return new SimCluster(seed, faults, Rules.NONE);
  }

  public DeterministicEnv env() {
    return env;
  }

  public SimStore store() {
    return store;
  }

  public ObjectRegistry api() {
    return api;
  }

  /** The seeds a scenario runs: {@code -Dqm.seeds=N} (default {@code fallback}), from 1. */
  public static long[] seeds(int fallback) {
    int n = Integer.getInteger("qm.seeds", fallback);
    var out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = i + 1;
    }
    return out;
  }

  /** Creates a device class selecting devices of base class {@code cls}. */
  public DeviceClass deviceClass(String name, String cls) {
    return api.create(
        new DeviceClass(
            ObjectMeta.named(name), new DeviceClassSpec(cls, List.of()), DeviceClassStatus.EMPTY));
  }

  /**
   * A ready node with {@code gpus} healthy GPUs named gpu-0.., published as an agent would. Its
   * allocation record is the allocator's to create, at its first allocation there.
   */
  public Node addNode(String name, int gpus) {
    var node = registerNode(name);
    var devices = new ArrayList<Device>();
    for (int i = 0; i < gpus; i++) {
      devices.add(
          new Device(
              "gpu-" + i,
              "gpu",
              Map.of("uuid", name + "-gpu-" + i, "model", "H100"),
              Device.Health.Healthy,
              ""));
    }
    api.create(
        new DeviceSlice(
            ObjectMeta.named(name), new DeviceSliceSpec(name, devices), DeviceSliceStatus.EMPTY));
    return node;
  }

  /**
   * Creates the {@code Node} object, ready, as its agent does when it starts (its slice is not
   * touched).
   */
  public Node registerNode(String name) {
    var conditions =
        List.of(
            new Condition(
                NodeConditions.AGENT_READY,
                Condition.Status.True,
                "Heartbeat",
                "",
                Optional.of(env.now())),
            new Condition(
                NodeConditions.DEVICES_READY,
                Condition.Status.True,
                "AllPresent",
                "",
                Optional.of(env.now())));
    return api.create(
        new Node(
            ObjectMeta.named(name),
            NodeSpec.EMPTY,
            new NodeStatus(conditions, Optional.of(env.now()), "boot-1", "sim", List.of())));
  }

  /** Sends a heartbeat for {@code node} now (AgentReady=True), retrying lost compare-and-sets. */
  public void heartbeat(String node) {
    updateStatus(
        node,
        n -> {
          var s = n.status();
          var c =
              Condition.set(
                  s.conditions(),
                  new Condition(
                      NodeConditions.AGENT_READY,
                      Condition.Status.True,
                      "Heartbeat",
                      "",
                      Optional.empty()),
                  env.now());
          return n.withStatus(
              new NodeStatus(
                  c,
                  Optional.of(env.now()),
                  s.bootId(),
                  s.agentVersion(),
                  s.computeDomains(),
                  s.plugins(),
                  s.domainDaemons()));
        });
  }

  /** Sends heartbeats for {@code node} every {@code every}, while {@code alive} says so. */
  public void heartbeatEvery(
      String node, Duration every, java.util.function.BooleanSupplier alive) {
    env.schedule(
        every,
        () -> {
          if (alive.getAsBoolean()) {
            heartbeat(node);
          }
          heartbeatEvery(node, every, alive);
        });
  }

  /** Read-modify-write of a node's status, retried on conflict. */
  public Node updateStatus(String node, UnaryOperator<Node> change) {
    while (true) {
      var n = api.get(Kinds.NODE, node).orElseThrow();
      try {
        return api.updateStatus(change.apply(n));
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict)) {
          throw e;
        }
      }
    }
  }

  /**
   * Read-modify-write of a node (labels, spec), retried when it lost a race: a 409 of a rule (the
   * node unchanged since it was read, e.g. a MIG mode change while a claim holds the GPU) is
   * thrown, never retried for ever.
   */
  public Node update(String node, UnaryOperator<Node> change) {
    while (true) {
      var n = api.get(Kinds.NODE, node).orElseThrow();
      try {
        return api.update(change.apply(n));
      } catch (ApiException e) {
        if (!dev.quartermaster.api.client.LostRace.lost(api, Kinds.NODE, n, e)) {
          throw e;
        }
      }
    }
  }

  /**
   * Sets the replicas of workload {@code name}'s first group, the rest of its spec kept, as an
   * operator's apply would; retried on conflict.
   */
  public void scale(String name, int replicas) {
    while (true) {
      var w = api.get(Kinds.WORKLOAD, name).orElseThrow();
      var groups = new ArrayList<>(w.spec().groups());
      groups.set(0, groups.getFirst().withReplicas(replicas));
      try {
        api.update(w.withSpec(w.spec().withGroups(groups)));
        return;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict)) {
          throw e;
        }
      }
    }
  }

  /** Runs the env until {@code done} holds, for at most {@code limit} of virtual time. */
  public boolean runUntil(java.util.function.BooleanSupplier done, Duration limit) {
    return env.runUntil(done, limit);
  }
}
