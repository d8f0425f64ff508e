package dev.quartermaster.control.volume;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.workload.Task;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One reconcile's decision for a created volume, pure: the claim steps that need no call (applied
 * together in one status write), or else the one call to make next — releases before grants' publishes,
 * so a volume that is changing hands gets there first.
 *
 * @param status the status with every no-call step applied and new claims granted
 * @param edited whether {@code status} differs from the volume's (then it is written before any call)
 */
public record VolumePlan(VolumeStatus status, boolean edited, Optional<Call> call) {

  /** The controller call a claim needs. */
  public sealed interface Call {
    VolumeClaim claim();

    record Publish(VolumeClaim claim) implements Call {}

    record Unpublish(VolumeClaim claim) implements Call {}
  }

  /**
   * @param users the tasks that name the volume
   * @param publishes the plugin has PUBLISH_UNPUBLISH_VOLUME
   */
  public static VolumePlan of(Volume v, List<Task> users, Function<String, Optional<Node>> nodes, boolean publishes) {
    var kept = new ArrayList<VolumeClaim>();
    Optional<Call> publish = Optional.empty();
    Optional<Call> unpublish = Optional.empty();
    boolean edited = false;
    for (var c : v.status().claims()) {
      var node = nodes.apply(c.node());
      var fate = node.isEmpty() || node.get().spec().fenced() ? ClaimMachine.NodeFate.Dead : ClaimMachine.NodeFate.MayReturn;
      var step = ClaimMachine.next(c, holderLive(c, users), fate, publishes, node.flatMap(VolumePlan::problem),
          sharesAttachment(c, v.status().claims()));
      switch (step) {
        case ClaimStep.NodeDetachOnBehalf n -> {
          kept.add(c.withState(VolumeClaim.State.NodeDetached));
          edited = true;
        }
        case ClaimStep.AttachWithoutCall a -> {
          kept.add(c.attachedWith(c.publishContext()));
          edited = true;
        }
        case ClaimStep.DetachWithoutCall d -> {
          kept.add(c.withState(VolumeClaim.State.ControllerDetached));
          edited = true;
        }
        case ClaimStep.Free f -> edited = true;
        case ClaimStep.Publish p -> {
          kept.add(c);
          publish = publish.or(() -> Optional.of(new Call.Publish(c)));
        }
        case ClaimStep.Unpublish u -> {
          kept.add(c);
          unpublish = unpublish.or(() -> Optional.of(new Call.Unpublish(c)));
        }
        case ClaimStep.Hold h -> kept.add(c);
        case ClaimStep.AwaitNode w -> kept.add(c);
      }
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
              || AccessRules.whyNot(v.spec().accessMode(), kept, use.mode(), taskNode).isPresent()) {
            continue;
          }
          kept.add(new VolumeClaim(t.metadata().name(), t.metadata().uid(), taskNode, use.mode(),
              VolumeClaim.State.Taken, false, java.util.Map.of()));
          edited = true;
          break;
        }
      }
    }
    var next = unpublish.isPresent() ? unpublish : publish;
    var call = edited ? Optional.<Call>empty() : next;
    return new VolumePlan(v.status().withClaims(kept), edited, call);
  }

  /** The claim's task incarnation still runs, or may yet run, on the claim's node. */
  private static boolean holderLive(VolumeClaim c, List<Task> users) {
    return users.stream().anyMatch(t -> c.heldBy(t.metadata().name(), t.metadata().uid())
        && !t.status().phase().isFinished() && !t.metadata().isDeleting()
        && t.spec().node().filter(c.node()::equals).isPresent());
  }

  /**
   * Another claim on {@code c}'s node is attached and still taken: two incarnations of a task, or
   * two readers, on one node share the node's attachment, so the first to let go must not take it
   * from a process of the other. (A claim its agent already released needs it no more.)
   */
  private static boolean sharesAttachment(VolumeClaim c, List<VolumeClaim> claims) {
    return claims.stream().anyMatch(o -> o != c && o.node().equals(c.node()) && o.attached()
        && o.state() == VolumeClaim.State.Taken);
  }

  /** "node-3 NotReady since 2026-...", for a node whose agent has gone quiet. */
  private static Optional<String> problem(Node n) {
    if (ControllerRoute.live(n)) {
      return Optional.empty();
    }
    var since = Condition.find(n.status().conditions(), NodeConditions.AGENT_READY)
        .flatMap(Condition::lastTransition).map(t -> " since " + t).orElse("");
    return Optional.of("node " + n.metadata().name() + " NotReady" + since);
  }

  /** Tasks that may hold a claim now: bound, not finished, not being deleted. Oldest first, then by name. */
  private static List<Task> candidates(List<Task> tasks) {
    return tasks.stream()
        .filter(t -> t.spec().node().isPresent() && !t.status().phase().isFinished() && !t.metadata().isDeleting())
        .sorted(Comparator.comparing((Task t) -> t.metadata().createdAt().orElse(java.time.Instant.EPOCH))
            .thenComparing(t -> t.metadata().name()))
        .toList();
  }
}
