package dev.quartermaster.api.workload;

import java.util.List;
import java.util.function.Function;

/**
 * Whether a workload's job is over, from its tasks: what the workload controller writes as its
 * {@code Complete} condition and admission reads to give its quota back.
 */
public final class JobEnd {
  private JobEnd() {}

  /**
   * Whether the group's job is over: none of its tasks (those owned by {@code workloadUid}) runs or
   * may run again (each has finished and is not to be replaced), and as many have ended so as its
   * replicas ask, not counting those being deleted. A group that restarts always never is.
   */
  public static boolean reached(WorkerGroup group, String workloadUid, List<Task> tasks) {
    if (group.replicas() > 0 && group.restartPolicy() == RestartPolicy.Always) {
      return false;
    }
    int done = 0;
    for (var t : tasks) {
      if (!t.metadata().owner().map(o -> o.uid().equals(workloadUid)).orElse(false)) {
        continue;
      }
      var phase = t.status().phase();
      if (!phase.isFinished()) {
        return false; // at the first: a running job's decision reads one task
      }
      // A finished task being deleted (a victim's, stopped whole to start again) is no result.
      if (!group.restartPolicy().replaces(phase) && !t.metadata().isDeleting()) {
        done++;
      }
    }
    return done >= group.replicas();
  }

  /**
   * As above, from the group's counts of its workload's tasks ({@code JobEndTest} holds the two to
   * the same answers).
   */
  public static boolean reached(WorkerGroup group, GroupTaskCounts counts) {
    if (group.replicas() > 0 && group.restartPolicy() == RestartPolicy.Always) {
      return false;
    }
    int done = 0;
    for (var phase : TaskPhase.values()) {
      if (!phase.isFinished()
          && (counts.count(phase, false) > 0 || counts.count(phase, true) > 0)) {
        return false;
      }
      if (phase.isFinished() && !group.restartPolicy().replaces(phase)) {
        done += counts.count(phase, false);
      }
    }
    return done >= group.replicas();
  }

  /**
   * Whether {@code w}'s whole job is over: it has groups, and each has {@link #reached} its end
   * given its tasks ({@code tasksOf} a group's name).
   */
  public static boolean reached(Workload w, Function<String, List<Task>> tasksOf) {
    return !w.spec().groups().isEmpty()
        && w.spec().groups().stream()
            .allMatch(g -> reached(g, w.metadata().uid(), tasksOf.apply(g.name())));
  }

  /**
   * As {@link #reached(Workload, Function)}, from each group's counts ({@code countsOf} a name).
   */
  public static boolean reachedByCounts(Workload w, Function<String, GroupTaskCounts> countsOf) {
    return !w.spec().groups().isEmpty()
        && w.spec().groups().stream().allMatch(g -> reached(g, countsOf.apply(g.name())));
  }
}
