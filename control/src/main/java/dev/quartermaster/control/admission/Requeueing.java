package dev.quartermaster.control.admission;

/**
 * What the admission controller does with admissions that do not start, with evicted workloads, and
 * with queues that ask for what they use over their quota back (issue 44), and how it marks the
 * admissions that started (issue 50).
 *
 * @param startTimeouts an admission whose workload does not run within its start timeout gives its
 *     quota back ({@link StartTimeouts})
 * @param backoff an evicted workload waits out a backoff before it may be admitted again ({@link
 *     Requeues})
 * @param overQuota a queue set to {@code overQuota: Evict} has its workloads evicted while it uses
 *     more than it may hold ({@link OverQuotas}); off only in the simulation's naive variant
 * @param wholeOnChange a pass over a cohort decides it whole after any change of it but a start
 *     ({@link CohortChanges}); off only in the simulation's naive variant, where no change is
 *     counted and a pass only marks starts unless the last decision's recheck is due or a new term
 *     began
 */
public record Requeueing(
    boolean startTimeouts, boolean backoff, boolean overQuota, boolean wholeOnChange) {
  public static final Requeueing DEFAULT = new Requeueing(true, true, true, true);

  /** Start timeouts and backoff as given; over-quota evictions on. */
  public Requeueing(boolean startTimeouts, boolean backoff) {
    this(startTimeouts, backoff, true);
  }

  /** As given, and passes decide whole after every change. */
  public Requeueing(boolean startTimeouts, boolean backoff, boolean overQuota) {
    this(startTimeouts, backoff, overQuota, true);
  }

  /** These, with passes that decide whole only when a recheck is due (the naive variant). */
  public Requeueing wholeOnlyAtRechecks() {
    return new Requeueing(startTimeouts, backoff, overQuota, false);
  }
}
