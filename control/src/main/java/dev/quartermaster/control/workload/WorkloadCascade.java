package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.VolumeRetention;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.queue.Result;
import java.util.ArrayList;
import java.util.Map;

/**
 * A deleting workload: its tasks are deleted; once a live list shows none of them left, its slots'
 * template volumes are deleted ({@code Delete}) or let go unowned ({@code Retain}, so nothing
 * deletes them with the workload and a later workload of the same name adopts them), and {@link
 * Labels#TASKS_FINALIZER} is removed. Volumes wait for the tasks because a task being deleted may
 * still have its volume published; the volume controller keeps a deleted volume until its claims
 * are free anyway, so the workload need not wait for the volumes themselves.
 */
final class WorkloadCascade {
  private final ApiClient api;
  private final TaskWriter writer;
  private final GroupExpectations expectations;
  private final SlotVolumes volumes;

  WorkloadCascade(
      ApiClient api, TaskWriter writer, GroupExpectations expectations, SlotVolumes volumes) {
    this.api = api;
    this.writer = writer;
    this.expectations = expectations;
    this.volumes = volumes;
  }

  Result run(Workload w) {
    var name = w.metadata().name();
    // A live list: removing the finalizer is final, so it must not rest on a stale cache.
    var byWorkload = LabelSelector.equalTo(Map.of(Labels.WORKLOAD, name));
    var tasks =
        api.list(Kinds.TASK, byWorkload).items().stream()
            .filter(
                t ->
                    t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false))
            .toList();
    for (var t : tasks) {
      if (!t.metadata().isDeleting()) {
        writer.delete(
            w.metadata().uid() + "/" + t.metadata().labels().getOrDefault(Labels.GROUP, ""), t);
      }
    }
    if (!tasks.isEmpty() || !w.metadata().finalizers().contains(Labels.TASKS_FINALIZER)) {
      return Result.done(); // task deletions bring us back
    }
    var owned =
        api.list(Kinds.VOLUME, byWorkload).items().stream()
            .filter(
                v ->
                    v.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false))
            .toList();
    for (var v : owned) {
      var retention =
          w.spec().groups().stream()
              .filter(g -> g.name().equals(v.metadata().labels().getOrDefault(Labels.GROUP, "")))
              .findFirst()
              .map(WorkerGroup::volumeRetention)
              .orElse(VolumeRetention.Delete);
      if (retention == VolumeRetention.Retain) {
        volumes.release(v);
      } else if (!v.metadata().isDeleting()) {
        volumes.delete(v);
      }
    }
    var f = new ArrayList<>(w.metadata().finalizers());
    f.remove(Labels.TASKS_FINALIZER);
    api.update(w.withMetadata(w.metadata().withFinalizers(f)));
    expectations.clearAll(w.metadata().uid() + "/");
    return Result.done();
  }
}
