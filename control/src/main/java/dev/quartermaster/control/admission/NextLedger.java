package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The cohort's next ledger as one decision's steps write it, from what {@link CarryOver} kept, with
 * its quota figures kept up to date as it goes: each workload tried costs its classes, never a pass
 * over the queues. Mutable, and one decision's only.
 */
final class NextLedger {
  /** Name → entry. */
  final TreeMap<String, Admitted> kept;

  /** Name → nomination. */
  final TreeMap<String, Nomination> nominated;

  /** The cohort's figures with {@link #kept}. */
  final QuotaTally quota;

  /** The workloads admitted (or admitted again larger) by this decision, in order. */
  final List<String> admitted = new ArrayList<>();

  NextLedger(CohortSnapshot s, CarryOver carried) {
    this.kept = carried.kept();
    this.nominated = carried.nominated();
    this.quota = QuotaTally.of(s.specs(), kept);
  }

  /**
   * {@code w} admitted now through its queue for {@code usage}, keeping {@code preempted} (whom it
   * evicted to be admitted: the anti-cycle rule); counted in {@link #quota}.
   */
  Admitted admit(CohortSnapshot s, Workload w, List<String> preempted, Map<String, Integer> usage) {
    var queue = w.spec().queueName();
    var a =
        new Admitted(
            w.metadata().uid(),
            queue,
            CohortSnapshot.replicasOf(w.spec()),
            usage,
            s.priority(w),
            s.now(),
            Optional.empty(),
            preempted);
    var name = w.metadata().name();
    kept.put(name, a);
    quota.add(queue, usage);
    admitted.add(name);
    return a;
  }
}
