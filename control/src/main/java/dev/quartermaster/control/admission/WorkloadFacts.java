package dev.quartermaster.control.admission;

import dev.quartermaster.api.workload.Workload;
import java.util.Map;
import java.util.Set;

/**
 * What the controller learned of a cohort's workloads from their tasks and requeue records, for one
 * decision.
 *
 * @param taken workload → group → how many ordinals its live tasks take (the highest live ordinal +
 *     1), for the workloads scaled down below their admission: the admission shrinks only as their
 *     surplus tasks go, so the quota always covers what runs
 * @param finished the workloads whose jobs are over (every task ended for good): their quota is
 *     released, and they are not admitted again unless scaled up
 * @param stopped the evicted workloads none of whose tasks is left: their entries are released
 * @param backingOff the workloads that wait out a backoff after an eviction ({@link Requeues}):
 *     pending, but not taken (nor preempting) until it is over; and, when the cohort's ledger is
 *     full ({@link LedgerRoom}), every workload not admitted yet, held back the same way
 */
record WorkloadFacts(
    Map<String, Map<String, Integer>> taken,
    Set<String> finished,
    Set<String> stopped,
    Set<String> backingOff) {
  static final WorkloadFacts NONE = new WorkloadFacts(Map.of(), Set.of(), Set.of(), Set.of());

  /**
   * Whether the workload controller wrote that {@code w}'s job is over. For an evicted workload
   * that, not the tasks seen here, decides: the controller alone chooses between stopping a victim
   * to run again and letting a job that ended under it end, and a task cache that saw the job end
   * may be behind that controller's deletion of its tasks (then it runs again, after a backoff).
   */
  static boolean saidComplete(Workload w) {
    return dev.quartermaster.api.meta.Condition.find(
            w.status().conditions(), dev.quartermaster.api.workload.WorkloadConditions.COMPLETE)
        .map(dev.quartermaster.api.meta.Condition::isTrue)
        .orElse(false);
  }

  /** Whether any task of {@code w} (this very workload's) is still there. */
  static boolean hasTasks(Workload w, TaskView tasksOf) {
    return w.spec().groups().stream()
        .flatMap(g -> tasksOf.of(w, g.name()).stream())
        .anyMatch(
            t -> t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false));
  }
}
