package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.control.lifecycle.NodeLifecycle;
import java.time.Duration;
import java.util.HashMap;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A node goes silent while its task runs: it is marked NotReady and the task lost, but the task's
 * claim stays allocated there (the node may still use it) and no replacement takes its name, until
 * an operator fences the node; then the claim is released and the task replaced on the other node.
 */
class NodeLifecycleTest {

  @Test
  void heartbeatLossThenFence() {
    var c = new SimCluster(3, WatchFaults.NONE);
    c.deviceClass("gpu", "gpu");
    c.addNode("node-a", 4);
    c.addNode("node-b", 4);
    var aAlive = new AtomicBoolean(true);
    c.heartbeatEvery("node-a", Duration.ofSeconds(10), aAlive::get);
    c.heartbeatEvery("node-b", Duration.ofSeconds(10), () -> true);
    Worlds.start(c);
    // Pin the one task to node-a by making node-b unschedulable until it is placed.
    c.update(
        "node-b",
        n ->
            new dev.quartermaster.api.node.Node(
                n.metadata(), new NodeSpec(true, false), n.status()));
    c.api().create(Worlds.gpuWorkload("job", 1, "gpu", 2));
    c.env().advance(Duration.ofSeconds(5));
    var task = c.api().get(Kinds.TASK, "job-w-0").orElseThrow();
    assertThat(task.status().phase()).isEqualTo(TaskPhase.Scheduled);
    assertThat(task.spec().node()).contains("node-a");
    c.update(
        "node-b",
        n -> new dev.quartermaster.api.node.Node(n.metadata(), NodeSpec.EMPTY, n.status()));
    // The agent on node-a takes the claim (its finalizer first), prepares it and runs the task.
    var taken = c.api().get(Kinds.RESOURCE_CLAIM, "job-w-0-gpu").orElseThrow();
    var claim =
        c.api()
            .update(
                taken.withMetadata(
                    taken
                        .metadata()
                        .withFinalizers(
                            java.util.List.of(
                                new dev.quartermaster.api.claim.AgentFinalizer("node-a").name()))));
    var s = claim.status();
    var prepare = new HashMap<>(s.prepare());
    prepare.put(
        "node-a",
        new PrepareState(PrepareState.Phase.Prepared, "", java.util.List.of(), Optional.empty()));
    c.api()
        .updateStatus(
            claim.withStatus(
                new ResourceClaimStatus(s.allocation(), s.reservedFor(), prepare, s.conditions())));
    task = c.api().get(Kinds.TASK, "job-w-0").orElseThrow();
    c.api()
        .updateStatus(
            task.withStatus(
                new TaskStatus(
                    TaskPhase.Running,
                    "Started",
                    "",
                    task.status().node(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(c.env().now()),
                    Optional.empty(),
                    java.util.List.of())));
    var firstUid = task.metadata().uid();

    aAlive.set(false);
    c.env().advance(Duration.ofSeconds(70));
    var node = c.api().get(Kinds.NODE, "node-a").orElseThrow();
    var ready = Condition.find(node.status().conditions(), "AgentReady").orElseThrow();
    assertThat(ready.isTrue()).isFalse();
    assertThat(ready.reason()).isEqualTo(NodeLifecycle.HEARTBEAT_MISSED);
    var lost = c.api().get(Kinds.TASK, "job-w-0").orElseThrow();
    assertThat(lost.metadata().uid()).isEqualTo(firstUid);
    assertThat(lost.status().phase()).isEqualTo(TaskPhase.Failed);
    assertThat(lost.status().reason()).isEqualTo(NodeLifecycle.NODE_LOST);
    assertThat(lost.metadata().isDeleting())
        .as("replaced per OnFailure: deleting, held by its claims")
        .isTrue();
    // Not re-allocated while node-a may still use it (its claims, deleted with the task's failure,
    // wait for node-a's agent).
    assertThat(c.api().get(Kinds.RESOURCE_CLAIM, "job-w-0-gpu").orElseThrow().status().allocation())
        .hasValueSatisfying(a -> assertThat(a.node()).isEqualTo("node-a"));

    c.update(
        "node-a",
        n ->
            new dev.quartermaster.api.node.Node(
                n.metadata(), new NodeSpec(false, true), n.status()));
    c.env().advance(Duration.ofSeconds(30));
    var replaced = c.api().get(Kinds.TASK, "job-w-0").orElseThrow();
    assertThat(replaced.metadata().uid()).isNotEqualTo(firstUid);
    var newClaim = c.api().get(Kinds.RESOURCE_CLAIM, "job-w-0-gpu").orElseThrow();
    assertThat(newClaim.status().allocation())
        .hasValueSatisfying(a -> assertThat(a.node()).isEqualTo("node-b"));
    assertThat(replaced.status().phase()).isEqualTo(TaskPhase.Scheduled);
    assertThat(replaced.spec().node()).contains("node-b");
  }

  /**
   * Seed 603 (with a MIG node): a leader back from a pause checked a fenced node on a cache that
   * did not show its task there yet, and looked again only a grace period later, so the task held
   * its claim on the dead node past the fence's bound. A task seen on a fenced node after its check
   * is handed over at once.
   */
  @Test
  void aTaskSeenOnAFencedNodeAfterItsCheckIsFailedAtOnce() {
    var c = new SimCluster(3, WatchFaults.NONE);
    c.addNode("node-a", 4);
    c.heartbeatEvery("node-a", Duration.ofSeconds(10), () -> true);
    Worlds.start(c);
    c.update(
        "node-a",
        n ->
            new dev.quartermaster.api.node.Node(
                n.metadata(), new NodeSpec(false, true), n.status()));
    c.env().advance(Duration.ofSeconds(5));
    c.api()
        .create(
            new dev.quartermaster.api.workload.Task(
                dev.quartermaster.api.meta.ObjectMeta.named("late"),
                new dev.quartermaster.api.workload.TaskSpec(
                    Optional.of("node-a"),
                    java.util.List.of("serve"),
                    java.util.Map.of(),
                    java.util.List.of(),
                    java.util.List.of(),
                    "exec",
                    Optional.empty()),
                TaskStatus.EMPTY));
    c.env().advance(Duration.ofSeconds(3));
    var late = c.api().get(Kinds.TASK, "late").orElseThrow();
    assertThat(late.status().phase())
        .as("failed within seconds, not at the node's next check a grace period (40 s) later")
        .isEqualTo(TaskPhase.Failed);
    assertThat(late.status().reason()).isEqualTo(NodeLifecycle.NODE_FENCED);
  }
}
