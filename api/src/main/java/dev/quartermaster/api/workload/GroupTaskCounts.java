package dev.quartermaster.api.workload;

import java.util.EnumMap;
import java.util.List;

/**
 * How many of one workload's tasks of one group are in each phase, being deleted or not: all that
 * the end of a job ({@link JobEnd}) and a start timeout judge of the tasks. A controller's cache
 * keeps these counts in an index, so a decision over a workload of 100,000 tasks reads a dozen
 * counts, not the tasks.
 */
@FunctionalInterface
public interface GroupTaskCounts {
  /** The group's tasks in {@code phase} that are ({@code deleting}) or are not being deleted. */
  int count(TaskPhase phase, boolean deleting);

  /** The counts of those of {@code tasks} that {@code ownerUid} owns. */
  static GroupTaskCounts of(List<Task> tasks, String ownerUid) {
    var live = new EnumMap<TaskPhase, Integer>(TaskPhase.class);
    var deleting = new EnumMap<TaskPhase, Integer>(TaskPhase.class);
    for (var t : tasks) {
      if (t.metadata().owner().map(o -> o.uid().equals(ownerUid)).orElse(false)) {
        (t.metadata().isDeleting() ? deleting : live).merge(t.status().phase(), 1, Integer::sum);
      }
    }
    return (phase, beingDeleted) -> (beingDeleted ? deleting : live).getOrDefault(phase, 0);
  }

  /** The tasks that run, or have ended for good under {@code policy}: a start counts them. */
  default int started(RestartPolicy policy) {
    int started = count(TaskPhase.Running, false);
    for (var phase : TaskPhase.values()) {
      if (policy.endedForGood(phase)) {
        started += count(phase, false) + count(phase, true);
      }
    }
    return started;
  }
}
