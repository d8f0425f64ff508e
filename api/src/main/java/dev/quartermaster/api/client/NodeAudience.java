package dev.quartermaster.api.client;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.workload.Task;
import java.util.HashSet;
import java.util.Set;

/**
 * The nodes whose agents must hear of an object as it is ({@link WatchScope.Node}): a change
 * concerns the nodes of the object before it and after it.
 *
 * <ul>
 *   <li>A task concerns the node it is pinned or scheduled to; a task being deleted concerns every
 *       node, since a claim of a task that never reached its node may be prepared there.
 *   <li>A claim concerns the node it is allocated on, every node whose prepare state it carries,
 *       and every node whose {@link AgentFinalizer} it carries (put on with the allocation, taken
 *       off after the unprepare), so it concerns a node for as long as that node may hold its
 *       devices.
 *   <li>Any other object concerns every node.
 * </ul>
 */
public sealed interface NodeAudience {
  AllNodes ALL = new AllNodes();

  static NodeAudience of(ApiObject object) {
    return switch (object) {
      case Task t when t.metadata().isDeleting() -> ALL;
      case Task t -> {
        var nodes = new HashSet<String>(2);
        t.spec().node().ifPresent(nodes::add);
        t.status().node().ifPresent(nodes::add);
        yield new Nodes(nodes);
      }
      case ResourceClaim c -> {
        var nodes = new HashSet<>(c.status().prepare().keySet());
        c.status().allocation().map(Allocation::node).ifPresent(nodes::add);
        c.metadata()
            .finalizers()
            .forEach(f -> AgentFinalizer.parse(f).ifPresent(a -> nodes.add(a.node())));
        yield new Nodes(nodes);
      }
      default -> ALL;
    };
  }

  /** Whether node {@code node}'s agent is among them. */
  boolean includes(String node);

  /** Every node's agent. */
  record AllNodes() implements NodeAudience {
    @Override
    public boolean includes(String node) {
      return true;
    }
  }

  /** These nodes' agents (none: no agent's). */
  record Nodes(Set<String> names) implements NodeAudience {
    public Nodes {
      names = Set.copyOf(names);
    }

    @Override
    public boolean includes(String node) {
      return names.contains(node);
    }
  }
}
