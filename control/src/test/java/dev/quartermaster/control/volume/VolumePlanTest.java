package dev.quartermaster.control.volume;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaim.Mode;
import dev.quartermaster.api.volume.VolumeClaim.State;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.volume.VolumeClaimStep;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link VolumePlan#of}, case by case: what is granted, which no-call steps are written together,
 * and which call comes next.
 */
class VolumePlanTest {
  private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

  private static Node node(String name, boolean ready, boolean fenced) {
    var agent =
        new Condition(
            NodeConditions.AGENT_READY,
            ready ? Condition.Status.True : Condition.Status.False,
            ready ? "Heartbeat" : "HeartbeatMissed",
            "",
            Optional.of(T0));
    return new Node(
        ObjectMeta.named(name),
        new NodeSpec(false, fenced),
        NodeStatus.EMPTY.withConditions(List.of(agent)));
  }

  /** node-1 and node-2 ready, node-3 NotReady, node-4 fenced; node-5 does not exist. */
  private static final Function<String, Optional<Node>> NODES =
      name ->
          switch (name) {
            case "node-1", "node-2" -> Optional.of(node(name, true, false));
            case "node-3" -> Optional.of(node(name, false, false));
            case "node-4" -> Optional.of(node(name, true, true));
            default -> Optional.empty();
          };

  private static Volume volume(AccessMode access, boolean deleting, VolumeClaim... claims) {
    var meta = ObjectMeta.named("data");
    return new Volume(
        deleting ? meta.withDeletedAt(T0) : meta,
        new VolumeSpec("hostpath", 1L << 30, access, Map.of()),
        new VolumeStatus(VolumePhase.Available, "vol-1", 1L << 30, List.of(claims), List.of()));
  }

  private static Task task(
      String name, String node, Mode mode, int createdSecond, TaskPhase phase) {
    var use = mode == Mode.Write ? VolumeUse.writer("data") : VolumeUse.reader("data");
    var spec =
        new TaskSpec(
            Optional.of(node),
            List.of("run"),
            Map.of(),
            List.of(),
            List.of(use),
            "exec",
            Optional.empty());
    var status =
        new TaskStatus(
            phase,
            "",
            "",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of());
    return new Task(
        ObjectMeta.named(name).withUid("uid-" + name).withCreatedAt(T0.plusSeconds(createdSecond)),
        spec,
        status);
  }

  private static Task running(String name, String node, Mode mode, int createdSecond) {
    return task(name, node, mode, createdSecond, TaskPhase.Running);
  }

  private static VolumeClaim claim(Task t, State state, boolean attached) {
    return new VolumeClaim(
        t.metadata().name(),
        t.metadata().uid(),
        t.spec().node().orElseThrow(),
        t.spec().volumes().getFirst().mode(),
        state,
        attached,
        Map.of());
  }

  private static List<String> holders(VolumePlan plan) {
    return plan.status().claims().stream()
        .map(c -> c.task() + ":" + c.state() + (c.attached() ? "+attached" : ""))
        .toList();
  }

  @Test
  void theOldestWriterIsGrantedAndTheOtherWaits() {
    var young = running("a", "node-2", Mode.Write, 2);
    var old = running("b", "node-1", Mode.Write, 1);
    var plan =
        VolumePlan.of(volume(AccessMode.SingleNodeWriter, false), List.of(young, old), NODES, true);
    assertThat(holders(plan)).containsExactly("b:Taken");
    assertThat(plan.edited()).isTrue();
    assertThat(plan.call()).as("the grant is written before any call").isEmpty();

    var next =
        VolumePlan.of(
            volume(
                AccessMode.SingleNodeWriter,
                false,
                plan.status().claims().toArray(VolumeClaim[]::new)),
            List.of(young, old),
            NODES,
            true);
    assertThat(next.edited()).isFalse();
    assertThat(next.call())
        .contains(new VolumePlan.Call.Publish(plan.status().claims().getFirst()));
  }

  @Test
  void readersOfAMultiNodeVolumeAreAllGrantedInOneWrite() {
    var plan =
        VolumePlan.of(
            volume(AccessMode.MultiNodeReaderOnly, false),
            List.of(
                running("r-1", "node-1", Mode.Read, 1),
                running("r-2", "node-2", Mode.Read, 2),
                running("w", "node-1", Mode.Write, 0)),
            NODES,
            true);
    assertThat(holders(plan)).containsExactly("r-1:Taken", "r-2:Taken");
  }

  @Test
  void nothingIsGrantedToATaskThatIsFinishedDeletingUnboundOrAlreadyHolding() {
    var finished = task("f", "node-1", Mode.Read, 1, TaskPhase.Succeeded);
    var deleting = running("d", "node-1", Mode.Read, 2);
    deleting = new Task(deleting.metadata().withDeletedAt(T0), deleting.spec(), deleting.status());
    var unbound = running("u", "node-1", Mode.Read, 3);
    unbound =
        new Task(unbound.metadata(), unbound.spec().withNode(Optional.empty()), unbound.status());
    var holding = running("h", "node-1", Mode.Read, 4);
    var plan =
        VolumePlan.of(
            volume(
                AccessMode.MultiNodeMultiWriter, false, claim(holding, State.NodeDetached, true)),
            List.of(finished, deleting, unbound, holding),
            NODES,
            true);
    assertThat(holders(plan)).containsExactly("h:NodeDetached+attached");
    assertThat(plan.edited()).isFalse();
  }

  @Test
  void aDeletingVolumeGrantsNothing() {
    var plan =
        VolumePlan.of(
            volume(AccessMode.SingleNodeWriter, true),
            List.of(running("a", "node-1", Mode.Write, 1)),
            NODES,
            true);
    assertThat(plan.status().claims()).isEmpty();
    assertThat(plan.edited()).isFalse();
    assertThat(plan.call()).isEmpty();
  }

  /**
   * A writer that is still letting go holds the volume: the next is granted only in the write that
   * frees it.
   */
  @Test
  void theNextWriterIsGrantedOnlyOnceTheFirstIsFreed() {
    var first = task("first", "node-1", Mode.Write, 1, TaskPhase.Succeeded);
    var second = running("second", "node-2", Mode.Write, 2);
    for (var state : List.of(State.Taken, State.NodeDetached)) {
      var plan =
          VolumePlan.of(
              volume(AccessMode.SingleNodeWriter, false, claim(first, state, true)),
              List.of(first, second),
              NODES,
              true);
      assertThat(holders(plan))
          .as("first %s", state)
          .containsExactly("first:" + state + "+attached");
    }
    var freed =
        VolumePlan.of(
            volume(
                AccessMode.SingleNodeWriter, false, claim(first, State.ControllerDetached, true)),
            List.of(first, second),
            NODES,
            true);
    assertThat(holders(freed)).containsExactly("second:Taken");
    assertThat(freed.edited()).isTrue();
  }

  @Test
  void everyStepWithoutACallIsAppliedInOneWrite() {
    var onFenced = running("on-fenced", "node-4", Mode.Read, 1);
    var onMissing = running("on-missing", "node-5", Mode.Read, 2);
    var detached = task("detached", "node-1", Mode.Read, 3, TaskPhase.Failed);
    var freed = task("freed", "node-1", Mode.Read, 4, TaskPhase.Failed);
    var toAttach = running("to-attach", "node-2", Mode.Read, 5);
    var v =
        volume(
            AccessMode.MultiNodeReaderOnly,
            false,
            claim(onFenced, State.Taken, true),
            claim(onMissing, State.Taken, true),
            claim(detached, State.NodeDetached, false),
            claim(freed, State.ControllerDetached, false),
            claim(toAttach, State.Taken, false));
    var plan =
        VolumePlan.of(v, List.of(onFenced, onMissing, detached, freed, toAttach), NODES, false);
    assertThat(holders(plan))
        .containsExactly(
            "on-fenced:NodeDetached+attached",
            "on-missing:NodeDetached+attached",
            "detached:ControllerDetached",
            "to-attach:Taken+attached");
    assertThat(plan.edited()).isTrue();
    assertThat(plan.call()).isEmpty();
  }

  /**
   * I5: a node that has merely gone quiet may still be writing; its claim waits for its agent or a
   * fence.
   */
  @Test
  void aClaimOnANotReadyNodeIsKeptEvenWithItsHolderGone() {
    var gone = task("w", "node-3", Mode.Write, 1, TaskPhase.Failed);
    var next = running("next", "node-1", Mode.Write, 2);
    var plan =
        VolumePlan.of(
            volume(AccessMode.SingleNodeWriter, false, claim(gone, State.Taken, true)),
            List.of(gone, next),
            NODES,
            true);
    assertThat(holders(plan)).containsExactly("w:Taken+attached");
    assertThat(plan.edited()).isFalse();
    assertThat(plan.call()).isEmpty();
  }

  /**
   * The incarnation holds its claim only on the claim's own node: bound elsewhere, it is gone
   * there.
   */
  @Test
  void aHolderBoundToAnotherNodeIsNotLiveOnTheClaimsNode() {
    var t = running("t", "node-2", Mode.Write, 1);
    var onOtherNode =
        new VolumeClaim("t", "uid-t", "node-1", Mode.Write, State.Taken, false, Map.of());
    var plan =
        VolumePlan.of(
            volume(AccessMode.MultiNodeMultiWriter, false, onOtherNode), List.of(t), NODES, true);
    assertThat(plan.call()).as("no publish: its holder does not run on node-1").isEmpty();
    assertThat(plan.edited()).isFalse();
  }

  /**
   * A volume changing hands gets there first: a release's call before a grant's publish, whatever
   * the list order.
   */
  @Test
  void aReleaseIsCalledBeforeAPublish() {
    var newcomer = running("new", "node-2", Mode.Write, 2);
    var leaver = task("old", "node-1", Mode.Write, 1, TaskPhase.Succeeded);
    var v =
        volume(
            AccessMode.MultiNodeMultiWriter,
            false,
            claim(newcomer, State.Taken, false),
            claim(leaver, State.NodeDetached, true));
    var plan = VolumePlan.of(v, List.of(newcomer, leaver), NODES, true);
    assertThat(plan.call())
        .contains(new VolumePlan.Call.Unpublish(claim(leaver, State.NodeDetached, true)));
    assertThat(naiveFirstCall(v, List.of(newcomer, leaver)))
        .as("the naive plan publishes first")
        .isInstanceOf(VolumeClaimStep.Publish.class);
  }

  /** The naive plan: the first call the claims' list meets. */
  private static VolumeClaimStep naiveFirstCall(Volume v, List<Task> users) {
    return v.status().claims().stream()
        .map(
            c ->
                VolumeClaimMachine.next(
                    c,
                    users.stream()
                        .anyMatch(
                            t ->
                                c.heldBy(t.metadata().name(), t.metadata().uid())
                                    && !t.status().phase().isFinished()),
                    VolumeClaimMachine.NodeFate.MayReturn,
                    true,
                    Optional.empty(),
                    false))
        .filter(s -> s instanceof VolumeClaimStep.Publish || s instanceof VolumeClaimStep.Unpublish)
        .findFirst()
        .orElseThrow();
  }

  /**
   * Seed 839: two claims on one node share its attachment; the first to let go leaves it to the
   * other.
   */
  @Test
  void aReleasedClaimIsNotDetachedFromUnderAnotherTakenClaimOnItsNode() {
    var old = running("old", "node-1", Mode.Read, 1);
    var young = task("young", "node-1", Mode.Read, 2, TaskPhase.Failed);
    var plan =
        VolumePlan.of(
            volume(
                AccessMode.MultiNodeReaderOnly,
                false,
                claim(old, State.Taken, true),
                claim(young, State.NodeDetached, true)),
            List.of(old, young),
            NODES,
            true);
    assertThat(holders(plan))
        .containsExactly("old:Taken+attached", "young:ControllerDetached+attached");
    assertThat(plan.call()).isEmpty();
  }

  /**
   * Once both let go, the node's attachment is no one's: the volume is unpublished. Counting any
   * other attached claim there as sharing (the naive rule) would leave it attached for ever.
   */
  @Test
  void twoReleasedClaimsOnANodeStillDetachTheVolume() {
    var a = task("a", "node-1", Mode.Read, 1, TaskPhase.Failed);
    var b = task("b", "node-1", Mode.Read, 2, TaskPhase.Failed);
    var both = List.of(claim(a, State.NodeDetached, true), claim(b, State.NodeDetached, true));
    var plan =
        VolumePlan.of(
            volume(AccessMode.MultiNodeReaderOnly, false, both.toArray(VolumeClaim[]::new)),
            List.of(a, b),
            NODES,
            true);
    assertThat(plan.call()).contains(new VolumePlan.Call.Unpublish(both.getFirst()));
    for (var c : both) {
      boolean naiveShared =
          both.stream().anyMatch(o -> o != c && o.node().equals(c.node()) && o.attached());
      assertThat(
              VolumeClaimMachine.next(
                  c,
                  false,
                  VolumeClaimMachine.NodeFate.MayReturn,
                  true,
                  Optional.empty(),
                  naiveShared))
          .as("the naive rule never unpublishes")
          .isInstanceOf(VolumeClaimStep.DetachWithoutCall.class);
    }
  }
}
