package dev.quartermaster.control.workload;

import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * A gang that holds devices for fewer members than it needs: some live member is placed (bound to a
 * node, or one of its claims allocated: whichever cache shows it first; but a bound member with a
 * live claim of its own that no node holds, made again under it, is placed in name only), and some
 * group of it has fewer members placed, or done for good, than its share of {@code minMember} (at
 * most what its queue admitted). It was whole once (G1) and lost a member: to a drain, a lost or
 * unhealthy node, an operator, a crash, or a scale-up its devices do not follow. The members it has
 * hold their devices for nothing, since a collective needs every rank. A pure function of the
 * caches, so it is tested on its own.
 *
 * @param placed its live members placed on a node, by name
 * @param needed the members it needs placed (its groups' shares, within what is admitted)
 * @param unplaced why each group short of its share is: its live members that wait, and how many of
 *     its wanted members have no live task
 */
public record PartlyPlaced(List<String> placed, int needed, List<String> unplaced) {
  public PartlyPlaced {
    placed = List.copyOf(placed);
    unplaced = List.copyOf(unplaced);
  }

  /** The gang's shortfall, if it is placed but short of members. */
  static Optional<PartlyPlaced> of(GangView view) {
    var gang = view.gang();
    var tasks = view.tasks();
    var workloadUid = view.workloadUid();
    var admitted = view.admitted();
    var allocatedFor = new HashSet<String>();
    // Tasks with a live claim of their own that no node holds: bound, such a task is placed only
    // in name (GangView#boundInNameOnly). Its claim was made again under it (deleted by hand) and
    // can go only to its node, where something else may have taken the room: counted as placed,
    // its gang was never judged partly placed, and the others held their devices for ever
    // (campaign seed 160's draws: G3).
    var waitingFor = new HashSet<String>();
    for (var c : view.claims()) {
      if (c.metadata().isDeleting()) {
        continue;
      }
      var owners = c.status().allocation().isPresent() ? allocatedFor : waitingFor;
      c.metadata().owner().ifPresent(o -> owners.add(o.uid()));
    }
    var placed = new ArrayList<String>();
    var unplaced = new ArrayList<String>();
    int needed = 0;
    for (var group : view.spec().groups()) {
      if (!gang.has(group.name())) {
        continue;
      }
      int need = Math.min(gang.shareOf(group.name()), admitted.applyAsInt(group.name()));
      needed += need;
      int here = 0;
      int done = 0;
      var waiting = new ArrayList<String>();
      for (var t : tasks.getOrDefault(group.name(), List.of())) {
        if (!t.metadata().owner().map(o -> o.uid().equals(workloadUid)).orElse(false)) {
          continue;
        }
        var phase = t.status().phase();
        if (phase.isFinished()) {
          if (group.restartPolicy().endedForGood(phase) && !t.metadata().isDeleting()) {
            done++;
          }
          continue;
        }
        if (t.metadata().isDeleting()) {
          continue;
        }
        var uid = t.metadata().uid();
        boolean inNameOnly = view.boundInNameOnly() && waitingFor.contains(uid);
        if (allocatedFor.contains(uid) || (isPlaced(t) && !inNameOnly)) {
          placed.add(t.metadata().name());
          here++;
        } else {
          waiting.add(t.metadata().name() + waitingFor(t));
        }
      }
      int missing = need - here - done - waiting.size();
      if (here + done < need) {
        unplaced.addAll(waiting);
        if (missing > 0) {
          unplaced.add(
              missing + " member(s) of group " + group.name() + " being replaced (no live task)");
        }
      }
    }
    if (placed.isEmpty() || unplaced.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PartlyPlaced(placed, needed, unplaced));
  }

  /** Bound to a node: pinned, or past {@code Pending} (as {@link GangStatuses} counts it). */
  static boolean isPlaced(Task t) {
    return t.spec().node().isPresent() || t.status().phase() != TaskPhase.Pending;
  }

  private static String waitingFor(Task t) {
    if (isPlaced(t)) {
      return t.spec().node().map(n -> " (pinned to " + n + ", ").orElse(" (")
          + "a claim of it made again that no node holds)";
    }
    var s = t.status();
    return s.reason().isEmpty() ? " (Pending)" : " (Pending, " + s.reason() + ")";
  }

  /** {@code 1 of 2 members placed (workers-0); not placed: workers-1 (Pending, ...)}. */
  public String describe() {
    return placed.size()
        + " of "
        + needed
        + " members placed ("
        + String.join(", ", placed)
        + "); not placed: "
        + String.join(", ", unplaced);
  }
}
