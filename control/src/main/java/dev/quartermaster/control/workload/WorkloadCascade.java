package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.queue.Result;
import java.util.ArrayList;
import java.util.Map;

/**
 * A deleting workload: its tasks are deleted, and {@link Labels#TASKS_FINALIZER} is removed once a
 * live list shows none of them left.
 */
final class WorkloadCascade {
  private final ApiClient api;
  private final TaskWriter writer;
  private final GroupExpectations expectations;

  WorkloadCascade(ApiClient api, TaskWriter writer, GroupExpectations expectations) {
    this.api = api;
    this.writer = writer;
    this.expectations = expectations;
  }

  Result run(Workload w) {
    var name = w.metadata().name();
    // A live list: removing the finalizer is final, so it must not rest on a stale cache.
    var tasks = api.list(Kinds.TASK, LabelSelector.equalTo(Map.of(Labels.WORKLOAD, name))).items().stream()
        .filter(t -> t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false))
        .toList();
    for (var t : tasks) {
      if (!t.metadata().isDeleting()) {
        writer.delete(w.metadata().uid() + "/" + t.metadata().labels().getOrDefault(Labels.GROUP, ""), t);
      }
    }
    if (!tasks.isEmpty() || !w.metadata().finalizers().contains(Labels.TASKS_FINALIZER)) {
      return Result.done(); // task deletions bring us back
    }
    var f = new ArrayList<>(w.metadata().finalizers());
    f.remove(Labels.TASKS_FINALIZER);
    api.update(w.withMetadata(w.metadata().withFinalizers(f)));
    expectations.clearAll(w.metadata().uid() + "/");
    return Result.done();
  }
}
