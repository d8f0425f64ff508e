package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Informers;
import java.util.Optional;

/** Whether a workload is admitted, as the caches show it: the one lookup every reader makes. */
public final class Admissions {
  private Admissions() {}

  /** The cohort {@code w}'s queue lends and borrows in; empty while its queue does not exist. */
  public static Optional<String> cohortOf(Informers informers, Workload w) {
    return informers.queues().cache().get(w.spec().queueName()).map(Queue::cohort);
  }

  /** {@code w}'s entry in its cohort's ledger (this very workload's: same uid, same queue). */
  public static Optional<Admitted> of(Informers informers, Workload w) {
    return cohortOf(informers, w)
        .flatMap(c -> informers.quotaLedgers().cache().get(c))
        .map(l -> l.spec().admitted().get(w.metadata().name()))
        .filter(a -> a.uid().equals(w.metadata().uid()) && a.queue().equals(w.spec().queueName()));
  }

  /**
   * How many workers of group {@code group} of {@code w} may exist: 0 until it is admitted, and 0
   * again once it is evicted.
   */
  public static int admittedReplicas(Informers informers, Workload w, String group) {
    return of(informers, w)
        .filter(a -> !a.evicting())
        .map(a -> a.replicas().getOrDefault(group, 0))
        .orElse(0);
  }

  /** Why {@code w} is being evicted, once another workload chose it as a victim. */
  public static Optional<Eviction> eviction(Informers informers, Workload w) {
    return of(informers, w).flatMap(Admitted::eviction);
  }
}
