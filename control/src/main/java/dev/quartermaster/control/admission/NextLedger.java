package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.AdmissionTransitions;
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
   * {@code w}, nominated, admitted now for {@code usage}, its nomination gone into its entry
   * ({@link AdmissionTransitions#admittedNominated}); counted in {@link #quota}.
   */
  void admitNominated(CohortSnapshot s, Workload w, Map<String, Integer> usage) {
    var n = nominated.remove(w.metadata().name());
    put(w, AdmissionTransitions.admittedNominated(n, admission(s, w, usage)));
  }

  /**
   * {@code w} admitted now for {@code usage} in its queue's turn, in its old admission's place if
   * it grew ({@link AdmissionTransitions#admittedByShare}); counted in {@link #quota}.
   */
  void admitByShare(CohortSnapshot s, Workload w, Map<String, Integer> usage) {
    var name = w.metadata().name();
    var before = Optional.ofNullable(kept.get(name));
    var nomination = Optional.ofNullable(nominated.get(name));
    put(w, AdmissionTransitions.admittedByShare(before, nomination, admission(s, w, usage)));
  }

  /** The admission of {@code w} made now through its queue, for {@code usage}. */
  private static Admitted admission(CohortSnapshot s, Workload w, Map<String, Integer> usage) {
    return new Admitted(
        w.metadata().uid(),
        w.spec().queueName(),
        CohortSnapshot.replicasOf(w.spec()),
        usage,
        s.priority(w),
        s.now());
  }

  private void put(Workload w, Admitted a) {
    var name = w.metadata().name();
    kept.put(name, a);
    quota.add(a.queue(), a.usage());
    admitted.add(name);
  }
}
