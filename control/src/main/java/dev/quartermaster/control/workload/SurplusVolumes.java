package dev.quartermaster.control.workload;

import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.VolumeRetention;
import dev.quartermaster.api.workload.WorkerGroup;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * Which template volumes of one group its slots no longer need: a pure function, tested on its own.
 * A volume goes only when its slot is above {@code replicas} (or its group is gone from the spec),
 * no task of the slot is left (not even one being deleted: it may still have the volume published),
 * and the group's retention is {@code Delete}. {@code Retain} keeps it, owned by the workload, so a
 * scale-up finds it again; the workload's deletion then lets it go unowned.
 */
final class SurplusVolumes {
  private SurplusVolumes() {}

  /**
   * @param group the group as the newest spec has it; empty when the group was removed, whose
   *     volumes follow the default retention ({@link VolumeRetention#Delete})
   * @param volumes the group's template volumes in the cache
   * @param tasks every task of the group in a view that includes our own writes
   */
  static List<Volume> surplus(
      String workload,
      String groupName,
      String workloadUid,
      Optional<WorkerGroup> group,
      List<Volume> volumes,
      List<Task> tasks) {
    var retention = group.map(WorkerGroup::volumeRetention).orElse(VolumeRetention.Delete);
    if (retention == VolumeRetention.Retain) {
      return List.of();
    }
    int replicas = group.map(WorkerGroup::replicas).orElse(0);
    var taskNames = new HashSet<String>();
    tasks.forEach(t -> taskNames.add(t.metadata().name()));
    return volumes.stream()
        .filter(v -> v.metadata().owner().map(o -> o.uid().equals(workloadUid)).orElse(false))
        .filter(v -> !v.metadata().isDeleting())
        .filter(
            v ->
                SlotVolumes.ordinal(v)
                    .map(
                        o ->
                            o >= replicas
                                && !taskNames.contains(TaskNames.task(workload, groupName, o)))
                    .orElse(false))
        .toList();
  }
}
