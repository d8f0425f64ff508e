package dev.quartermaster.control.admission;

/**
 * What the admission controller does with admissions that do not start, with evicted workloads, and
 * with queues that ask for what they use over their quota back (issue 44).
 *
 * @param startTimeouts an admission whose workload does not run within its start timeout gives its
 *     quota back ({@link StartTimeouts})
 * @param backoff an evicted workload waits out a backoff before it may be admitted again ({@link
 *     Requeues})
 * @param overQuota a queue set to {@code overQuota: Evict} has its workloads evicted while it uses
 *     more than it may hold ({@link OverQuotas}); off only in the simulation's naive variant
 */
public record Requeueing(boolean startTimeouts, boolean backoff, boolean overQuota) {
  public static final Requeueing DEFAULT = new Requeueing(true, true, true);

  /** Start timeouts and backoff as given; over-quota evictions on. */
  public Requeueing(boolean startTimeouts, boolean backoff) {
    this(startTimeouts, backoff, true);
  }
}
