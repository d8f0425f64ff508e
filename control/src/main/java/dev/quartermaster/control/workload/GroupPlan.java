package dev.quartermaster.control.workload;

import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.RestartBackoff;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one worker group needs, decided from a view of its tasks that includes every write of ours:
 * the ordinals to create and the tasks to delete. A pure function, so it is tested on its own.
 *
 * <ul>
 *   <li>Ordinals {@code 0..replicas-1} are wanted; a wanted ordinal with no task is created. A name
 *       still held by a task that is being deleted is waited for, never reused early.
 *   <li>Tasks at or above {@code replicas} are deleted, highest ordinal first.
 *   <li>A finished task is to be restarted when the restart policy says so ({@code OnFailure}:
 *       failed; {@code Always}: failed or succeeded); when, {@link RestartBackoff} decides.
 *       Otherwise it keeps its slot.
 *   <li>A task of the group's name pattern owned by an earlier incarnation of this workload is
 *       deleted. One owned by anything else (another workload, or nobody: made by hand) is not ours
 *       to delete: it keeps its ordinal and is reported as {@code taken}.
 *   <li>A gang whose members fail as one ({@code RestartGang}): while one member is to be
 *       restarted, every other live member is stopped ({@code gangStop}), so that the gang is
 *       placed again as a whole, and none is created until the failed ones are replaced; a
 *       collective (NCCL, MPI) dies with any one rank anyway. A workload gang's members are those
 *       of all its groups ({@link WorkloadGangs}): a failed launcher stops every worker, and a
 *       failed worker the launcher too.
 *   <li>Such a gang's member stopped from outside while it ran ({@code lost}: deleted by a drain or
 *       an operator, not finished, not by a scale-down of ours) has failed too: the gang is stopped
 *       and placed again as a whole, not left holding devices for the others while its replacement
 *       waits for room beside them.
 * </ul>
 */
public record GroupPlan(
    List<Integer> create,
    List<Task> delete,
    List<Task> restart,
    List<Task> taken,
    List<Task> gangStop,
    List<Task> lost) {

  public GroupPlan {
    create = List.copyOf(create);
    delete = List.copyOf(delete);
    restart = List.copyOf(restart);
    taken = List.copyOf(taken);
    gangStop = List.copyOf(gangStop);
    lost = List.copyOf(lost);
  }

  public GroupPlan(List<Integer> create, List<Task> delete, List<Task> restart, List<Task> taken) {
    this(create, delete, restart, taken, List.of(), List.of());
  }

  /** Whether the plan writes anything. */
  public boolean acts() {
    return !create.isEmpty() || !delete.isEmpty() || !restart.isEmpty() || !gangStop.isEmpty();
  }

  /** The plan of one group on its own: {@link #decideAll} for a workload of that group alone. */
  public static GroupPlan decide(
      String workload, String workloadUid, WorkerGroup group, List<Task> tasks) {
    return decideAll(
            workload,
            workloadUid,
            new WorkloadSpec(List.of(group), Optional.empty()),
            Map.of(group.name(), tasks))
        .get(group.name());
  }

  /**
   * The plans of the groups of {@code spec} whose tasks {@code views} holds (the groups whose view
   * may be acted on now), by group name. A gang that restarts as one, with a member to be restarted
   * in any of its groups here, stops the live members of every one of its groups here; a group of
   * it whose view is not here is stopped by a later pass, once its view is.
   */
  public static Map<String, GroupPlan> decideAll(
      String workload, String workloadUid, WorkloadSpec spec, Map<String, List<Task>> views) {
    return decideAll(workload, workloadUid, spec, views, true);
  }

  /**
   * As above; {@code lostMemberFails}: whether a {@code RestartGang} gang's member stopped from
   * outside counts as failed ({@link GangRecovery}).
   */
  static Map<String, GroupPlan> decideAll(
      String workload,
      String workloadUid,
      WorkloadSpec spec,
      Map<String, List<Task>> views,
      boolean lostMemberFails) {
    var plans = new HashMap<String, GroupPlan>();
    for (var group : spec.groups()) {
      var view = views.get(group.name());
      if (view != null) {
        plans.put(group.name(), alone(workload, workloadUid, group, view));
      }
    }
    for (var gang : WorkloadGangs.of(spec)) {
      boolean failed =
          gang.groups().stream()
              .map(plans::get)
              .anyMatch(
                  p ->
                      p != null
                          && (!p.restart().isEmpty() || (lostMemberFails && !p.lost().isEmpty())));
      if (!gang.restartsAsOne() || !failed) {
        continue;
      }
      for (var group : spec.groups()) {
        var plan = plans.get(group.name());
        if (plan != null && gang.has(group.name())) {
          plans.put(
              group.name(),
              plan.stoppingGang(workload, workloadUid, group.name(), views.get(group.name())));
        }
      }
    }
    return Map.copyOf(plans);
  }

  /** The group's plan, its gang aside. */
  private static GroupPlan alone(
      String workload, String workloadUid, WorkerGroup group, List<Task> tasks) {
    var byOrdinal = new HashMap<Integer, Task>();
    var delete = new ArrayList<Task>();
    var restart = new ArrayList<Task>();
    var taken = new ArrayList<Task>();
    var lost = new ArrayList<Task>();
    for (var t : tasks) {
      var ordinal = TaskNames.ordinal(workload, group.name(), t.metadata().name());
      var owner = t.metadata().owner();
      boolean ours = owner.map(o -> o.uid().equals(workloadUid)).orElse(false);
      if (ours && ordinal.isPresent() && lostFromOutside(t, ordinal.getAsInt(), group)) {
        lost.add(t);
      }
      boolean earlierIncarnation =
          !ours
              && owner
                  .map(o -> o.kind().equals(Kinds.WORKLOAD.name()) && o.name().equals(workload))
                  .orElse(false);
      if (ordinal.isEmpty() || t.metadata().isDeleting()) {
        ordinal.ifPresent(o -> byOrdinal.put(o, t));
        continue;
      }
      byOrdinal.put(ordinal.getAsInt(), t);
      if (earlierIncarnation || (ours && ordinal.getAsInt() >= group.replicas())) {
        delete.add(t);
      } else if (!ours) {
        taken.add(t);
      } else if (group.restartPolicy().replaces(t.status().phase())) {
        restart.add(t);
      }
    }
    var create = new ArrayList<Integer>();
    for (int i = 0; i < group.replicas(); i++) {
      if (!byOrdinal.containsKey(i)) {
        create.add(i);
      }
    }
    delete.sort(
        Comparator.comparingInt(
                (Task t) ->
                    TaskNames.ordinal(workload, group.name(), t.metadata().name())
                        .orElse(Integer.MAX_VALUE))
            .reversed());
    return new GroupPlan(create, delete, restart, taken, List.of(), lost);
  }

  /**
   * Whether wanted task {@code t} is being stopped by someone else while it had not finished: we
   * delete an unfinished task of a wanted slot only to stop a gang (all of it at once), and a
   * surplus one only with {@link SpecDecision#SCALE_DOWN_AT}, which a slot wanted again after a
   * scale back up still carries.
   */
  private static boolean lostFromOutside(Task t, int ordinal, WorkerGroup group) {
    return t.metadata().isDeleting()
        && !t.status().phase().isFinished()
        && ordinal < group.replicas()
        && !t.metadata().labels().containsKey(SpecDecision.SCALE_DOWN_AT);
  }

  /**
   * This plan with its gang restarting: every live member of ours that is not being deleted is
   * stopped, and none is created until the failed ones are replaced: one created now would be
   * stopped again by the next pass, and the gang is placed again only as a whole anyway.
   */
  private GroupPlan stoppingGang(
      String workload, String workloadUid, String group, List<Task> tasks) {
    var stop = new ArrayList<Task>();
    for (var t : tasks) {
      boolean ours = t.metadata().owner().map(o -> o.uid().equals(workloadUid)).orElse(false);
      if (ours
          && TaskNames.ordinal(workload, group, t.metadata().name()).isPresent()
          && !t.metadata().isDeleting()
          && !t.status().phase().isFinished()
          && !delete.contains(t)) {
        stop.add(t);
      }
    }
    stop.sort(Comparator.comparing((Task t) -> t.metadata().name()));
    return new GroupPlan(List.of(), delete, restart, taken, stop, lost);
  }

  /** The group's counts for the workload's status (no gang line: {@link GangStatuses} adds it). */
  public static GroupStatus status(WorkerGroup group, String workloadUid, List<Task> tasks) {
    int live = 0;
    int placed = 0;
    int running = 0;
    int succeeded = 0;
    int failed = 0;
    for (var t : tasks) {
      if (!t.metadata().owner().map(o -> o.uid().equals(workloadUid)).orElse(false)) {
        continue;
      }
      var phase = t.status().phase();
      if (phase == TaskPhase.Succeeded) {
        succeeded++;
      } else if (phase == TaskPhase.Failed) {
        failed++;
      } else if (!t.metadata().isDeleting()) {
        live++;
        if (phase != TaskPhase.Pending) {
          placed++;
        }
        if (phase == TaskPhase.Running) {
          running++;
        }
      }
    }
    return new GroupStatus(
        group.name(), group.replicas(), live, running, succeeded, failed, placed, Optional.empty());
  }
}
