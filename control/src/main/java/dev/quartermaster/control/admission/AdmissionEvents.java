package dev.quartermaster.control.admission;

import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.Requeue;
import dev.quartermaster.api.workload.Workload;
import java.util.Map;

/**
 * What the admission controller tells people, as events on the workloads its decisions touch:
 * admitted, evicted (on the victim, naming why, and on its preemptor), timed out, over quota,
 * requeued, held back by a full ledger.
 */
final class AdmissionEvents {
  private final EventRecorder events;

  AdmissionEvents(EventRecorder events) {
    this.events = events;
  }

  /** {@code w} admitted as {@code a}, in {@code cohort}. */
  void admitted(Workload w, Admitted a, String cohort) {
    events.normal(
        w,
        "Admitted",
        "admitted through queue "
            + a.queue()
            + " (cohort "
            + cohort
            + "), using "
            + (a.usage().isEmpty() ? "no devices" : a.usage().toString()));
  }

  /** The events of one eviction: on the victim, naming its preemptor, and on the preemptor. */
  void evicted(Map<String, Workload> workloads, Preemption.Victim v) {
    var e = v.entry().eviction().orElseThrow();
    var victim = workloads.get(v.name());
    var preemptor = workloads.get(e.by());
    if (victim == null || preemptor == null) {
      return;
    }
    var why =
        switch (e.reason()) {
          case Preempted ->
              "preempted by "
                  + e.by()
                  + " of higher priority in queue "
                  + v.entry().queue()
                  + " (priority "
                  + v.entry().priority()
                  + ")";
          case Reclaimed ->
              "reclaimed: queue "
                  + preemptor.spec().queueName()
                  + " takes back the quota queue "
                  + v.entry().queue()
                  + " borrowed, for "
                  + e.by();
          case StartTimeout -> "did not start within its start timeout";
          case OverQuota -> "its queue is over its quota";
        };
    events.warning(
        victim,
        e.reason().name(),
        why
            + "; its tasks are stopped (grace period, then killed) and it waits in its queue again");
    events.normal(
        preemptor,
        "Preempting",
        "evicting "
            + v.name()
            + " ("
            + e.reason()
            + ") to make room; admitted once it has stopped");
  }

  void timedOut(Workload w, String missing) {
    events.warning(
        w,
        "StartTimeout",
        "not running "
            + w.spec().startTimeout().toSeconds()
            + "s after its admission ("
            + missing
            + "); its quota goes back to queue "
            + w.spec().queueName()
            + ", its tasks are stopped, and it waits in its queue again after a backoff");
  }

  void overQuota(Workload w, OverQuotas.Victim v) {
    if (w == null) {
      return;
    }
    events.warning(
        w,
        EvictionReason.OverQuota.name(),
        "queue "
            + v.entry().queue()
            + " is over its quota and set to overQuota: Evict ("
            + v.why()
            + "); evicted to bring it back within: its tasks are stopped, and it waits in its"
            + " queue again after a backoff");
  }

  void requeued(Workload w, Requeue r) {
    events.normal(
        w,
        "Requeued",
        "waits in queue "
            + w.spec().queueName()
            + " again after its eviction ("
            + r.reason()
            + (r.count() > 1 ? ", " + r.count() + " in a row" : "")
            + "); admitted no sooner than "
            + r.delaySeconds()
            + "s from now (the backoff doubles with each eviction in a row, up to "
            + Requeues.BACKOFF.max().toMinutes()
            + " min)");
  }

  /**
   * {@code w} fits its queue's quota but was not admitted: its cohort's ledger would grow to {@code
   * bytes}, over the {@code room} one store write takes ({@link LedgerRoom}).
   */
  void ledgerFull(Workload w, String cohort, long bytes, long room, int admitted) {
    if (w == null) {
      return;
    }
    events.warning(
        w,
        "LedgerFull",
        "not admitted yet: cohort "
            + cohort
            + "'s quota ledger would grow to "
            + bytes
            + " bytes, over the "
            + room
            + " one store write takes ("
            + admitted
            + " workloads admitted in it); it is admitted as they are released, or split its"
            + " queues over more cohorts");
  }
}
