package dev.quartermaster.control.admission;

/**
 * What the admission controller does with admissions that do not start and with evicted workloads
 * (issue 44).
 *
 * @param startTimeouts an admission whose workload does not run within its start timeout gives its
 *     quota back ({@link StartTimeouts})
 * @param backoff an evicted workload waits out a backoff before it may be admitted again ({@link
 *     Requeues})
 */
public record Requeueing(boolean startTimeouts, boolean backoff) {
  public static final Requeueing DEFAULT = new Requeueing(true, true);
}
