package dev.quartermaster.control.lifecycle;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
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
 * this controller clears the allocations and prepare state of every claim on it.
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
      clearClaims(name);
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
   * Only for a fenced node: its claims may now go elsewhere. Ledger entries stay until the claims
   * are deleted.
   */
  private void clearClaims(String node) {
    for (ResourceClaim c : informers.claims().cache().byIndex(Informers.BY_NODE, node)) {
      var s = c.status();
      var prepare = new HashMap<String, PrepareState>(s.prepare());
      prepare.remove(node);
      var condition =
          Conditions.of(
              ClaimConditions.ALLOCATED,
              false,
              NODE_FENCED,
              "node " + node + " was fenced; allocation cleared");
      api.updateStatus(
          c.withStatus(
              new ResourceClaimStatus(
                  Optional.empty(),
                  s.reservedFor(),
                  prepare,
                  Conditions.set(s.conditions(), condition, env.now()))));
    }
  }
}
