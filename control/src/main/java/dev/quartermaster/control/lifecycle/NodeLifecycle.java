package dev.quartermaster.control.lifecycle;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.NodeAudience;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.StaleWrites;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Optional;

/**
 * Watches every node's heartbeat. Liveness is judged by when this controller <em>saw</em> the
 * reported heartbeat change, on its own clock ({@link ObservedHeartbeats}), never by the value the
 * agent reports: a skewed or bogus timestamp (say, one in 2099) must not keep a dead node Ready. A
 * node with no new heartbeat seen for longer than the grace period is marked {@code
 * AgentReady=False reason=HeartbeatMissed} and its unfinished tasks {@code Failed reason=NodeLost}
 * (the workload controller then replaces them, per restart policy).
 *
 * <p>Its claims keep their allocations: the node may still be running the old tasks and using the
 * devices. They are freed in one of two ways only: the node comes back, its agent stops the tasks
 * and unprepares the claims, the tasks and then the claims are deleted (ledger entries follow); or
 * an operator declares the node dead ({@code spec.fenced=true}, {@code qm node fence}), and then
 * this controller does for every claim the node may hold what its agent would have done: it clears
 * the allocation there and the node's prepare state, and takes off the node's agent finalizer, so a
 * claim being deleted goes and the task that replaces its owner gets claims of its own. The store
 * lets a node's hold go without that node's agent only once the node is fenced ({@code
 * NodeHoldGuard}). Whether the node was first marked lost or not makes no difference.
 */
public final class NodeLifecycle {
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(40);
  public static final String HEARTBEAT_MISSED = "HeartbeatMissed";
  public static final String NODE_LOST = "NodeLost";
  public static final String NODE_FENCED = "NodeFenced";

  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final Duration grace;
  private final ControlLoop loop;
  private final ObservedHeartbeats heartbeats = new ObservedHeartbeats();

  private final EventRecorder events;

  public NodeLifecycle(Env env, ApiClient api, Informers informers, Duration grace) {
    this(env, api, informers, grace, EventRecorder.NONE);
  }

  public NodeLifecycle(
      Env env, ApiClient api, Informers informers, Duration grace, EventRecorder events) {
    this.env = env;
    this.events = events;
    this.api = api;
    this.informers = informers;
    this.grace = grace;
    this.loop = new ControlLoop("nodes", env, 1, this::reconcile);
    informers
        .nodes()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Node n) {
                loop.enqueue(n.metadata().name());
              }

              @Override
              public void onUpdate(Node o, Node n) {
                loop.enqueue(n.metadata().name());
              }

              @Override
              public void onDelete(Node n) {
                heartbeats.forget(n.metadata().name());
              }
            });
    // A task or claim seen on a fenced node after its last check (a cache that caught up: a
    // leader back from a pause checks before its watches deliver what changed meanwhile) is
    // handed over now, not at the next check a grace period later.
    informers
        .tasks()
        .addHandler(
            EventHandler.onAnyChange(
                t -> t.spec().node().filter(this::isFenced).ifPresent(loop::enqueue)));
    informers
        .claims()
        .addHandler(
            EventHandler.onAnyChange(
                c -> {
                  if (NodeAudience.of(c) instanceof NodeAudience.Nodes n) {
                    n.names().stream().filter(this::isFenced).forEach(loop::enqueue);
                  }
                }));
  }

  private boolean isFenced(String node) {
    return informers.nodes().cache().get(node).map(n -> n.spec().fenced()).orElse(false);
  }

  public ControlLoop loop() {
    return loop;
  }

  Result reconcile(String name) {
    return StaleWrites.requeued(this::check).apply(name);
  }

  private Result check(String name) {
    var cached = informers.nodes().cache().get(name);
    if (cached.isEmpty()) {
      return Result.done();
    }
    var n = cached.get();
    var reported = n.status().heartbeat();
    var silent = heartbeats.silence(name, reported, env.nanoTime());
    var last = reported.map(Instant::toString).orElse("none");
    var agent = Condition.find(n.status().conditions(), NodeConditions.AGENT_READY);
    boolean markedLost =
        agent.filter(c -> !c.isTrue() && c.reason().equals(HEARTBEAT_MISSED)).isPresent();
    if (n.spec().fenced()) {
      failTasks(name, NODE_FENCED, "node " + name + " was fenced by an operator");
      settleClaims(name);
    }
    if (silent.compareTo(grace) > 0) {
      if (!markedLost) {
        setAgentReady(
            n,
            Conditions.of(
                NodeConditions.AGENT_READY,
                false,
                HEARTBEAT_MISSED,
                "no new heartbeat seen for "
                    + silent.toSeconds()
                    + "s (grace "
                    + grace.toSeconds()
                    + "s; last reported heartbeat "
                    + last
                    + ")"));
      }
      failTasks(
          name,
          NODE_LOST,
          "node "
              + name
              + " stopped sending heartbeats (no new heartbeat seen for "
              + silent.toSeconds()
              + "s)");
      return Result.requeueAfter(grace);
    }
    if (markedLost) {
      setAgentReady(
          n,
          Conditions.of(
              NodeConditions.AGENT_READY, true, "HeartbeatResumed", "new heartbeat " + last));
    }
    // Look again just after the heartbeat would go stale.
    return Result.requeueAfter(grace.minus(silent).plusSeconds(1));
  }

  private void setAgentReady(Node n, Condition c) {
    var s = n.status();
    api.updateStatus(n.withStatus(s.withConditions(Conditions.set(s.conditions(), c, env.now()))));
    if (c.isTrue()) {
      events.normal(n, c.reason(), c.message());
    } else {
      events.warning(n, c.reason(), c.message());
    }
  }

  private void failTasks(String node, String reason, String message) {
    for (var t : informers.tasks().cache().byIndex(Informers.BY_NODE, node)) {
      if (t.status().phase().isFinished()) {
        continue;
      }
      api.updateStatus(t.withStatus(TaskTransitions.lost(t.status(), reason, message, env.now())));
      events.warning(t, reason, message);
    }
  }

  /**
   * Only for a fenced node: every claim it may hold is settled as its agent would have settled it,
   * so what the fence says it frees is free. The allocation there and the node's prepare state go
   * in one status write; then the node's agent finalizer (a claim being deleted goes with it). The
   * node's ledger keeps its entries until its agent, if it ever comes back, sees the claims gone.
   */
  private void settleClaims(String node) {
    var finalizer = new AgentFinalizer(node).name();
    for (ResourceClaim c : informers.claims().cache().byIndex(Informers.BY_HOLDER, node)) {
      var s = c.status();
      boolean allocatedHere = s.allocation().filter(a -> a.node().equals(node)).isPresent();
      if (allocatedHere || s.prepare().containsKey(node)) {
        var prepare = new HashMap<String, PrepareState>(s.prepare());
        prepare.remove(node);
        var conditions = s.conditions();
        if (allocatedHere) {
          conditions =
              Conditions.set(
                  conditions,
                  Conditions.of(
                      ClaimConditions.ALLOCATED,
                      false,
                      NODE_FENCED,
                      "node " + node + " was fenced; allocation cleared"),
                  env.now());
        }
        c =
            api.updateStatus(
                c.withStatus(
                    new ResourceClaimStatus(
                        allocatedHere ? Optional.empty() : s.allocation(),
                        s.reservedFor(),
                        prepare,
                        conditions)));
      }
      if (c.metadata().finalizers().contains(finalizer)) {
        var finalizers = new ArrayList<>(c.metadata().finalizers());
        finalizers.remove(finalizer);
        api.update(c.withMetadata(c.metadata().withFinalizers(finalizers)));
      }
    }
  }
}
