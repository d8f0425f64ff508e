package dev.quartermaster.control.admission;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.GroupTaskCounts;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload's tasks of a group, as one admission decision reads them: the tasks, or only their
 * counts (what the end of a job and a start timeout need: a decision over every workload of a
 * cohort reads counts, not each workload's thousands of tasks).
 */
interface TaskView {
  List<Task> of(Workload w, String group);

  default GroupTaskCounts counts(Workload w, String group) {
    return GroupTaskCounts.of(of(w, group), w.metadata().uid());
  }

  /** The cache's tasks, and its tally's counts. */
  static TaskView cached(Informers informers) {
    return new TaskView() {
      @Override
      public List<Task> of(Workload w, String group) {
        return informers
            .tasks()
            .cache()
            .byIndex(Informers.BY_GROUP, w.metadata().name() + "/" + group);
      }

      @Override
      public GroupTaskCounts counts(Workload w, String group) {
        return informers.taskCounts(w, group);
      }
    };
  }

  /** Each workload's tasks read live, once per decision (the view's life). */
  static TaskView live(ApiClient api) {
    var live = new HashMap<String, List<Task>>();
    return (w, group) ->
        live
            .computeIfAbsent(
                w.metadata().name(),
                n ->
                    api.list(Kinds.TASK, LabelSelector.equalTo(Map.of(Labels.WORKLOAD, n))).items())
            .stream()
            .filter(t -> group.equals(t.metadata().labels().get(Labels.GROUP)))
            .toList();
  }
}
