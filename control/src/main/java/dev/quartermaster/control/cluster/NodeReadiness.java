package dev.quartermaster.control.cluster;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import java.util.Optional;

/**
 * Whether new allocations may go to a node.
 *
 * <p>A node takes allocations only when its agent says its device set is complete ({@code
 * DevicesReady=True}) and it is alive ({@code AgentReady=True}), and no one has cordoned ({@code
 * spec.unschedulable}) or fenced it. A node that reports {@code AgentReady=True} but no {@code
 * DevicesReady} condition at all is <em>not</em> ready: silence about the device set is not a
 * complete device set (I3).
 */
public final class NodeReadiness {

  private NodeReadiness() {}

  /** Why {@code node} takes no new allocations; empty when it does. */
  public static Optional<String> whyNot(Node node) {
    if (node.metadata().isDeleting()) {
      return Optional.of("node " + node.metadata().name() + " is being deleted");
    }
    if (node.spec().fenced()) {
      return Optional.of("node " + node.metadata().name() + " is fenced");
    }
    if (node.spec().unschedulable()) {
      return Optional.of("node " + node.metadata().name() + " is unschedulable");
    }
    var conditions = node.status().conditions();
    var agent = Condition.find(conditions, NodeConditions.AGENT_READY);
    if (agent.isEmpty() || !agent.get().isTrue()) {
      return Optional.of(
          "node "
              + node.metadata().name()
              + " is not AgentReady"
              + agent.map(c -> " (" + c.reason() + ")").orElse(""));
    }
    var devices = Condition.find(conditions, NodeConditions.DEVICES_READY);
    if (devices.isEmpty()) {
      return Optional.of("node " + node.metadata().name() + " has not reported DevicesReady");
    }
    if (!devices.get().isTrue()) {
      return Optional.of(
          "node " + node.metadata().name() + " is not DevicesReady: " + devices.get().message());
    }
    return Optional.empty();
  }

  public static boolean isSchedulable(Node node) {
    return whyNot(node).isEmpty();
  }
}
