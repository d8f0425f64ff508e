package dev.quartermaster.sim.world;

import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.NodeAudience;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskTransitions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What is let go must be free, checked on the store and the running agents' ledgers after every
 * step:
 *
 * <ul>
 *   <li><b>HELD</b> (devices follow the quota): a claim of a task that has finished holds no device
 *       — allocated in the store, or prepared in its node's ledger — longer than {@link
 *       #HELD_BOUND} while its node's agent runs and reaches the server. A finished task never runs
 *       again, and once its workload's job is over its quota went back: what Q1 no longer counts
 *       must not stay held. The bound counts from when the task was first seen finished or its node
 *       last came back, whichever is later.
 *   <li><b>FENCE</b> (fencing frees what it says): once a node has been fenced for {@link
 *       #FENCE_BOUND}, no claim is allocated there, carries a prepare state of it or its agent's
 *       finalizer, and no unfinished task is bound to it: the operator's word that the node is down
 *       frees its tasks' devices for their replacements without its agent.
 * </ul>
 *
 * Both bounds leave room for a control-plane replica paused past its lease and a fail-over.
 */
final class ReleasePromises {
  static final Duration HELD_BOUND = Duration.ofSeconds(90);
  static final Duration FENCE_BOUND = Duration.ofSeconds(60);

  private final WholeCluster world;

  /** Claim uid → when the check first saw it held for a finished task on a reachable node. */
  private final Map<String, Long> heldSince = new HashMap<>();

  /** Node → since when the check has seen it fenced without a break. */
  private final Map<String, Long> fencedSince = new HashMap<>();

  ReleasePromises(WholeCluster world) {
    this.world = world;
  }

  void check(Map<String, Task> tasks, List<String> out) {
    long now = world.env().nanoTime();
    held(tasks, now, out);
    fenced(tasks, now, out);
  }

  /** What keeps the cluster from having let go what it should; empty when nothing. */
  String notConverged() {
    var tasks = new HashMap<String, Task>();
    world.view().tasks().forEach(t -> tasks.put(t.metadata().name(), t));
    for (var c : world.view().claims()) {
      var holds = holdsForFinished(c, tasks);
      if (holds.isPresent()) {
        return "claim " + c.metadata().name() + " of a finished task still holds " + holds.get();
      }
    }
    for (var n : world.nodes()) {
      if (world.fenced(n.name)) {
        var kept = keptBy(n.name);
        if (!kept.isEmpty()) {
          return "fenced node " + n.name + " still holds " + kept;
        }
      }
    }
    return "";
  }

  private void held(Map<String, Task> tasks, long now, List<String> out) {
    var seen = new java.util.HashSet<String>();
    for (var c : world.view().claims()) {
      var holds = holdsForFinished(c, tasks);
      var node = c.status().allocation().map(a -> a.node());
      if (holds.isEmpty() || node.isEmpty() || !reachable(node.get())) {
        continue;
      }
      var uid = c.metadata().uid();
      seen.add(uid);
      long since = heldSince.computeIfAbsent(uid, u -> now);
      if (now - since > HELD_BOUND.toNanos()) {
        out.add(
            "HELD claim "
                + c.metadata().name()
                + " of finished task "
                + c.metadata().owner().map(o -> o.name()).orElse("?")
                + " still holds "
                + holds.get()
                + " "
                + HELD_BOUND.toSeconds()
                + "s after it was seen finished, while "
                + node.get()
                + "'s agent runs and reaches the server: devices no admission counts");
      }
    }
    heldSince.keySet().retainAll(seen);
  }

  /**
   * What claim {@code c} holds, in words, if its owner task has finished (or is gone): an
   * allocation in the store, a prepared entry in its node's ledger; empty otherwise.
   */
  private Optional<String> holdsForFinished(ResourceClaim c, Map<String, Task> tasks) {
    var owner = c.metadata().owner().filter(o -> o.kind().equals(Kinds.TASK.name()));
    if (owner.isEmpty() || c.status().allocation().isEmpty()) {
      return Optional.empty();
    }
    var t = tasks.get(owner.get().name());
    boolean usesIt =
        t != null
            && t.metadata().uid().equals(owner.get().uid())
            && TaskTransitions.usesClaims(t.status().phase());
    if (usesIt) {
      return Optional.empty();
    }
    var a = c.status().allocation().get();
    var prepared =
        Optional.ofNullable(world.node(a.node()))
            .flatMap(WholeCluster.NodeSlot::ledger)
            .flatMap(l -> l.get(c.metadata().uid()))
            .filter(e -> e instanceof ClaimState.PrepareCompleted)
            .isPresent();
    return Optional.of(
        a.node()
            + "/"
            + a.devices().stream().map(d -> d.device()).toList()
            + (prepared ? " (prepared in its ledger)" : " (allocated)"));
  }

  /** Whether {@code node}'s agent runs and reaches the server. */
  private boolean reachable(String node) {
    var n = world.node(node);
    return n != null && n.agent.isPresent() && !n.api.isCut();
  }

  private void fenced(Map<String, Task> tasks, long now, List<String> out) {
    for (var n : world.nodes()) {
      if (!world.view().node(n.name).map(x -> x.spec().fenced()).orElse(false)) {
        fencedSince.remove(n.name);
        continue;
      }
      long since = fencedSince.computeIfAbsent(n.name, x -> now);
      if (now - since <= FENCE_BOUND.toNanos()) {
        continue;
      }
      var kept = keptBy(n.name);
      tasks.values().stream()
          .filter(
              t ->
                  t.spec().node().filter(n.name::equals).isPresent()
                      && !t.status().phase().isFinished())
          .forEach(t -> kept.add("task " + t.metadata().name() + " (" + t.status().phase() + ")"));
      if (!kept.isEmpty()) {
        out.add(
            "FENCE node "
                + n.name
                + " fenced "
                + FENCE_BOUND.toSeconds()
                + "s ago still holds "
                + kept
                + ": what the fence says it frees is not free");
      }
    }
  }

  /** The claims that still name {@code node} as a holder, each with how. */
  private List<String> keptBy(String node) {
    var kept = new ArrayList<String>();
    var finalizer = new AgentFinalizer(node).name();
    for (var c : world.view().claims()) {
      if (!NodeAudience.of(c).includes(node)) {
        continue;
      }
      var how = new ArrayList<String>();
      if (c.status().allocation().filter(a -> a.node().equals(node)).isPresent()) {
        how.add("allocated there");
      }
      if (c.status().prepare().containsKey(node)) {
        how.add("prepare state " + c.status().prepare().get(node).phase());
      }
      if (c.metadata().finalizers().contains(finalizer)) {
        how.add("finalizer " + finalizer);
      }
      kept.add(
          "claim "
              + c.metadata().name()
              + (c.metadata().isDeleting() ? " (deleting)" : "")
              + ": "
              + String.join(", ", how));
    }
    return kept;
  }
}
