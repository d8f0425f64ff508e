package dev.quartermaster.control.workload;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.cluster.Conditions;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A workload whose job is over ({@link dev.quartermaster.api.workload.JobEnd#reached}): its {@code
 * Complete} condition, which says how long the workload is kept, and, with {@code
 * spec.ttlSecondsAfterFinished}, when it is deleted: that long after the condition's transition, on
 * the controller's clock (never on the agents' reported finish times), as Kubernetes'
 * TTL-after-finished controller deletes a Job.
 */
final class Completion {
  private Completion() {}

  /** The {@code Complete} condition of a workload whose job is {@code over}; empty if not. */
  static Optional<Condition> condition(WorkloadSpec spec, boolean over) {
    if (!over) {
      return Optional.empty();
    }
    var kept =
        spec.ttlSecondsAfterFinished()
            .map(
                ttl ->
                    "deleted "
                        + ttl
                        + "s after (spec.ttlSecondsAfterFinished), its tasks and their logs with it")
            .orElse(
                "kept, with its tasks and their logs, until deleted (spec.ttlSecondsAfterFinished"
                    + " deletes it by itself)");
    return Optional.of(
        Conditions.of(
            WorkloadConditions.COMPLETE,
            true,
            WorkloadConditions.JOB_OVER,
            "every task has ended for good and its devices went back; " + kept));
  }

  /** {@code conditions} with the {@code Complete} condition set, or gone when there is none. */
  static List<Condition> apply(
      List<Condition> conditions, Optional<Condition> complete, Instant now) {
    if (complete.isPresent()) {
      return Conditions.set(conditions, complete.get(), now);
    }
    return conditions.stream().filter(c -> !c.type().equals(WorkloadConditions.COMPLETE)).toList();
  }

  /** When a workload with these conditions is to be deleted by its TTL; empty: not (yet) due. */
  static Optional<Instant> deleteAt(WorkloadSpec spec, List<Condition> conditions) {
    var since =
        Condition.find(conditions, WorkloadConditions.COMPLETE)
            .filter(Condition::isTrue)
            .flatMap(Condition::lastTransition);
    return spec.ttlSecondsAfterFinished().flatMap(ttl -> since.map(s -> s.plusSeconds(ttl)));
  }
}
