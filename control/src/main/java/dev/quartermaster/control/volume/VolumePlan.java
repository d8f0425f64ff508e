package dev.quartermaster.control.volume;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.volume.VolumeClaimMachine.NodeFate;
import dev.quartermaster.api.volume.VolumeClaimStep;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.workload.Task;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One reconcile's decision for a created volume, pure: the claim steps that need no call (applied
 * together in one status write), or else the one call to make next — releases before grants'
 * publishes, so a volume that is changing hands gets there first.
 *
 * @param status the status with every no-call step applied and new claims granted
 * @param edited whether {@code status} differs from the volume's (then it is written before any
 *     call)
 */
public record VolumePlan(VolumeStatus status, boolean edited, Optional<Call> call) {

  /** The controller call a volume claim needs. */
  public sealed interface Call {
    VolumeClaim volumeClaim();

    record Publish(VolumeClaim volumeClaim) implements Call {}

    record Unpublish(VolumeClaim volumeClaim) implements Call {}
  }

  /**
   * @param users the tasks that name the volume
   * @param publishes the plugin has PUBLISH_UNPUBLISH_VOLUME
   */
  public static VolumePlan of(
      Volume v, List<Task> users, Function<String, Optional<Node>> nodes, boolean publishes) {
    var kept = new ArrayList<VolumeClaim>();
    Optional<Call> publish = Optional.empty();
    Optional<Call> unpublish = Optional.empty();
    boolean edited = false;
    for (var c : v.status().claims()) {
      var node = nodes.apply(c.node());
      var fate = node.isEmpty() || node.get().spec().fenced() ? NodeFate.Dead : NodeFate.MayReturn;
      var step =
          VolumeClaimMachine.next(
              c,
              holderLive(c, users),
              fate,
              publishes,
              node.flatMap(VolumePlan::problem),
              sharesAttachment(c, v.status().claims()));
      if (step instanceof VolumeClaimStep.Publish && publish.isEmpty()) {
        publish = Optional.of(new Call.Publish(c));
      }
      if (step instanceof VolumeClaimStep.Unpublish && unpublish.isEmpty()) {
        unpublish = Optional.of(new Call.Unpublish(c));
      }
      // The steps with no call are applied here, all of them in one write; a freed claim leaves the
      // list.
      var done = withoutCall(step, c);
      var moved = done.map(e -> VolumeClaimMachine.apply(c, e).orThrow()).orElse(c);
      if (moved.state() != VolumeClaim.State.Free) {
        kept.add(moved);
      }
      edited |= done.isPresent();
    }
    if (!v.metadata().isDeleting()) {
      for (var t : candidates(users)) {
        var name = v.metadata().name();
        var taskNode = t.spec().node().orElseThrow();
        if (kept.stream().anyMatch(c -> c.heldBy(t.metadata().name(), t.metadata().uid()))) {
          continue;
        }
        for (var use : t.spec().volumes()) {
          if (!use.name().equals(name)
              || AccessRules.whyNot(v.spec().accessMode(), kept, use.mode(), taskNode)
                  .isPresent()) {
            continue;
          }
          kept.add(
              VolumeClaimMachine.grant(
                  t.metadata().name(), t.metadata().uid(), taskNode, use.mode()));
          edited = true;
          break;
        }
      }
    }
    var next = unpublish.isPresent() ? unpublish : publish;
    var call = edited ? Optional.<Call>empty() : next;
    return new VolumePlan(v.status().withClaims(kept), edited, call);
  }

  /** What a step that needs no call records at once; empty for a call or a wait. */
  private static Optional<VolumeClaimEvent> withoutCall(VolumeClaimStep step, VolumeClaim c) {
    return switch (step) {
      case VolumeClaimStep.NodeDetachOnBehalf n -> Optional.of(new VolumeClaimEvent.NodeGone());
      case VolumeClaimStep.AttachWithoutCall a ->
          Optional.of(new VolumeClaimEvent.Attached(c.publishContext()));
      case VolumeClaimStep.DetachWithoutCall d ->
          Optional.of(new VolumeClaimEvent.ControllerReleased());
      case VolumeClaimStep.Free f -> Optional.of(new VolumeClaimEvent.Freed());
      case VolumeClaimStep.Publish _,
          VolumeClaimStep.Unpublish _,
          VolumeClaimStep.Hold _,
          VolumeClaimStep.AwaitNode _ ->
          Optional.empty();
    };
  }

  /** The claim's task incarnation still runs, or may yet run, on the claim's node. */
  private static boolean holderLive(VolumeClaim c, List<Task> users) {
    return users.stream()
        .anyMatch(
            t ->
                c.heldBy(t.metadata().name(), t.metadata().uid())
                    && !t.status().phase().isFinished()
                    && !t.metadata().isDeleting()
                    && t.spec().node().filter(c.node()::equals).isPresent());
  }

  /**
   * Another claim on {@code c}'s node is attached and still taken: two incarnations of a task, or
   * two readers, on one node share the node's attachment, so the first to let go must not take it
   * from a process of the other. (A claim its agent already released needs it no more.)
   */
  private static boolean sharesAttachment(VolumeClaim c, List<VolumeClaim> claims) {
    return claims.stream()
        .anyMatch(
            o ->
                o != c
                    && o.node().equals(c.node())
                    && o.attached()
                    && o.state() == VolumeClaim.State.Taken);
  }

  /** "node-3 NotReady since 2026-...", for a node whose agent has gone quiet. */
  private static Optional<String> problem(Node n) {
    if (ControllerRoute.live(n)) {
      return Optional.empty();
    }
    var since =
        Condition.find(n.status().conditions(), NodeConditions.AGENT_READY)
            .flatMap(Condition::lastTransition)
            .map(t -> " since " + t)
            .orElse("");
    return Optional.of("node " + n.metadata().name() + " NotReady" + since);
  }

  /**
   * Tasks that may hold a claim now: bound, not finished, not being deleted. Oldest first, then by
   * name.
   */
  private static List<Task> candidates(List<Task> tasks) {
    return tasks.stream()
        .filter(
            t ->
                t.spec().node().isPresent()
                    && !t.status().phase().isFinished()
                    && !t.metadata().isDeleting())
        .sorted(
            Comparator.comparing(
                    (Task t) -> t.metadata().createdAt().orElse(java.time.Instant.EPOCH))
                .thenComparing(t -> t.metadata().name()))
        .toList();
  }
}
