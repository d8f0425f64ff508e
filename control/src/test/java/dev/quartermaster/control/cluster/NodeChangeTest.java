package dev.quartermaster.control.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The allocator and the volume controller skip a node's update when only its heartbeat moved (1,000
 * a second at 10,000 nodes), so every other change must be seen as one: each row changes one thing
 * besides the heartbeat and must not count as a heartbeat alone.
 */
class NodeChangeTest {
  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
  private static final Condition READY =
      new Condition(
          NodeConditions.AGENT_READY, Condition.Status.True, "Heartbeat", "", Optional.of(T0));

  private static final Node NODE =
      new Node(
          ObjectMeta.named("node-1").withLabels(Map.of("rack", "a")),
          NodeSpec.EMPTY,
          new NodeStatus(List.of(READY), Optional.of(T0), "boot-1", "0.1.0", List.of()));

  private static Node beat(Node n) {
    return n.withStatus(n.status().withHeartbeat(Optional.of(T0.plusSeconds(10))));
  }

  @Test
  void aNewHeartbeatAloneIsOne() {
    assertThat(NodeChange.isHeartbeatOnly(NODE, beat(NODE))).isTrue();
    assertThat(NodeChange.isHeartbeatOnly(NODE, NODE)).isTrue();
  }

  @Test
  void anyOtherChangeBesideTheHeartbeatIsNot() {
    Map<String, UnaryOperator<Node>> changes =
        Map.of(
            "unschedulable",
            n -> new Node(n.metadata(), n.spec().withUnschedulable(true), n.status()),
            "fenced",
            n -> new Node(n.metadata(), n.spec().withFenced(true), n.status()),
            "labels",
            n -> n.withMetadata(n.metadata().withLabels(Map.of("rack", "b"))),
            "deleting",
            n -> n.withMetadata(n.metadata().withDeletedAt(T0)),
            "finalizers",
            n -> n.withMetadata(n.metadata().withFinalizers(List.of("quartermaster.dev/x"))),
            "a condition",
            n ->
                n.withStatus(
                    new NodeStatus(
                        List.of(
                            new Condition(
                                NodeConditions.AGENT_READY,
                                Condition.Status.False,
                                "HeartbeatMissed",
                                "",
                                Optional.of(T0))),
                        n.status().heartbeat(),
                        n.status().bootId(),
                        n.status().agentVersion(),
                        List.of())),
            "the boot",
            n ->
                n.withStatus(
                    new NodeStatus(
                        n.status().conditions(),
                        n.status().heartbeat(),
                        "boot-2",
                        n.status().agentVersion(),
                        List.of())),
            "compute domains",
            n ->
                n.withStatus(
                    new NodeStatus(
                        n.status().conditions(),
                        n.status().heartbeat(),
                        n.status().bootId(),
                        n.status().agentVersion(),
                        List.of("domain-a"))));
    changes.forEach(
        (what, change) ->
            assertThat(NodeChange.isHeartbeatOnly(NODE, beat(change.apply(NODE))))
                .as("a heartbeat with a change of %s", what)
                .isFalse());
  }
}
