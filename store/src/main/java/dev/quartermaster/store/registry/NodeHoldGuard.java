package dev.quartermaster.store.registry;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.store.Txn.Compare;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a node holds of a claim is let go by that node, or by the fence that says it is down, and by
 * no one else, whoever writes. While {@code status.prepare[N]} says {@code Prepared}, node N's
 * devices are set up for the claim and a process there may use them: a write that drops that
 * prepare state, takes the allocation off N, or removes N's agent finalizer (so a deleted claim
 * goes, and its devices with it) is refused unless node N is fenced (read in the same transaction,
 * its revision joining the write). N's own agent writes {@code Unprepared} first, once it has let
 * the devices go, and then takes its finalizer off; the node lifecycle settles a fenced node's
 * claims in its place. A node that no longer exists holds nothing.
 *
 * <p>And a fenced node takes no new hold: a write that gives a claim a prepare state or the agent
 * finalizer of a fenced node is refused, so what the fence settled stays settled while the node's
 * agent, if it was only cut off, is still winding down what it ran.
 */
final class NodeHoldGuard implements WriteRules {
  private final StoredObjects stored;

  NodeHoldGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (!(current instanceof ResourceClaim c) || !(next instanceof ResourceClaim n)) {
      return List.of();
    }
    var compares = new ArrayList<Compare>();
    for (Map.Entry<String, PrepareState> e : c.status().prepare().entrySet()) {
      if (e.getValue().phase() != PrepareState.Phase.Prepared) {
        continue;
      }
      var node = e.getKey();
      var dropped = dropped(c, n, node);
      if (dropped.isEmpty()) {
        continue;
      }
      var key = StoredObjects.key(Kinds.NODE, node);
      var kv = reads.get(key);
      if (kv.isEmpty()) {
        compares.add(new Compare.ModRevision(key, 0));
        continue;
      }
      if (!stored.decode(Kinds.NODE, kv.get()).spec().fenced()) {
        throw new ApiException(
            Reason.Conflict,
            c.ref()
                + " is prepared on node "
                + node
                + ": a write may not drop "
                + dropped.get()
                + " while it is; node "
                + node
                + "'s agent lets it go (Unprepared first), or, if the node is down, fence it"
                + " (`qm node fence "
                + node
                + "`) and the fence does");
      }
      compares.add(new Compare.ModRevision(key, kv.get().modRevision()));
    }
    for (var node : newHolds(c, n)) {
      var key = StoredObjects.key(Kinds.NODE, node);
      var kv = reads.get(key);
      if (kv.isPresent() && stored.decode(Kinds.NODE, kv.get()).spec().fenced()) {
        throw new ApiException(
            Reason.Conflict,
            c.ref()
                + ": node "
                + node
                + " is fenced, and a fenced node takes no new hold on a claim (its prepare state"
                + " or agent finalizer) until `qm node unfence "
                + node
                + "`");
      }
      compares.add(new Compare.ModRevision(key, kv.map(x -> x.modRevision()).orElse(0L)));
    }
    return compares;
  }

  /** The nodes {@code n} gives a prepare state or an agent finalizer that {@code c} has not. */
  private static java.util.Set<String> newHolds(ResourceClaim c, ResourceClaim n) {
    var nodes = new java.util.TreeSet<String>();
    n.status().prepare().keySet().stream()
        .filter(node -> !c.status().prepare().containsKey(node))
        .forEach(nodes::add);
    n.metadata().finalizers().stream()
        .filter(f -> !c.metadata().finalizers().contains(f))
        .forEach(f -> AgentFinalizer.parse(f).ifPresent(a -> nodes.add(a.node())));
    return nodes;
  }

  /** What of node {@code node}'s hold {@code n} drops that {@code c} has, in words; empty: none. */
  private static Optional<String> dropped(ResourceClaim c, ResourceClaim n, String node) {
    if (!n.status().prepare().containsKey(node)) {
      return Optional.of("status.prepare[" + node + "]");
    }
    boolean allocatedHere = c.status().allocation().filter(a -> a.node().equals(node)).isPresent();
    if (allocatedHere && n.status().allocation().filter(a -> a.node().equals(node)).isEmpty()) {
      return Optional.of("its allocation on " + node);
    }
    var finalizer = new AgentFinalizer(node).name();
    if (c.metadata().finalizers().contains(finalizer)
        && !n.metadata().finalizers().contains(finalizer)) {
      return Optional.of("finalizer " + finalizer);
    }
    return Optional.empty();
  }
}
