package dev.quartermaster.control.workload;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.control.cluster.Conditions;

/**
 * A queued workload's {@code Admitted} condition: whether its queue admitted it, and if not, why
 * (evicted, preempting, backing off, finished, no such queue or priority class, or waiting for
 * quota). A pure function of its {@link QueueStanding}, so it is tested on its own.
 */
final class AdmissionCondition {
  private AdmissionCondition() {}

  static Condition of(Workload w, QueueStanding standing) {
    var queue = w.spec().queueName();
    var eviction = standing.admitted().flatMap(dev.quartermaster.api.queue.Admitted::eviction);
    if (eviction.isPresent()) {
      var e = eviction.get();
      return notAdmitted(
          e.reason().name(),
          (switch (e.reason()) {
                case Preempted ->
                    "preempted by " + e.by() + " (higher priority in queue " + queue + ")";
                case Reclaimed ->
                    "reclaimed for " + e.by() + ": queue " + queue + " ran on borrowed quota";
                case StartTimeout ->
                    "its tasks did not all run within its start timeout ("
                        + w.spec().startTimeout().toSeconds()
                        + "s) after it was admitted; its quota goes back";
                case OverQuota ->
                    "queue "
                        + queue
                        + " uses more than its quota lets it hold, and is set to overQuota:"
                        + " Evict; this workload gives its share back";
              })
              + "; stopping its tasks, then it waits in its queue again after a backoff");
    }
    if (standing.admitted().isEmpty() && standing.nomination().isPresent()) {
      return notAdmitted(
          WorkloadConditions.PREEMPTING,
          "waiting for "
              + standing.nomination().get().victims().size()
              + " preempted workload(s) to stop; it is admitted first once they have");
    }
    if (standing.admitted().isPresent()) {
      return Conditions.of(
          WorkloadConditions.ADMITTED,
          true,
          WorkloadConditions.ADMITTED_BY_QUEUE,
          "admitted through queue " + queue);
    }
    if (standing.requeue().isPresent()) {
      var r = standing.requeue().get();
      return notAdmitted(
          WorkloadConditions.BACKING_OFF,
          "evicted ("
              + r.reason()
              + (r.count() > 1 ? ", " + r.count() + " times in a row" : "")
              + "); waits out a backoff of "
              + r.delaySeconds()
              + "s (until "
              + r.until()
              + ") before queue "
              + queue
              + " may admit it again");
    }
    if (standing.finished().getAsBoolean()) {
      return notAdmitted(
          WorkloadConditions.FINISHED, "its job is over; its quota went back to queue " + queue);
    }
    if (!standing.queueExists()) {
      return notAdmitted(
          WorkloadConditions.NO_SUCH_QUEUE,
          "queue " + queue + " does not exist; create it, or set spec.queue to one that does");
    }
    if (!standing.priorityClassExists()) {
      return notAdmitted(
          WorkloadConditions.NO_SUCH_PRIORITY_CLASS,
          "priority class " + w.spec().priority().orElseThrow() + " does not exist");
    }
    return notAdmitted(
        WorkloadConditions.PENDING,
        "waiting in queue " + queue + " for quota; qm describe workload says why");
  }

  private static Condition notAdmitted(String reason, String message) {
    return Conditions.of(WorkloadConditions.ADMITTED, false, reason, message);
  }
}
