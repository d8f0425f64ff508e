package dev.quartermaster.api.queue;

/**
 * Why an admitted workload is stopped: for another, because it did not start in time, or because
 * its queue asked for what it uses over its quota back.
 */
public enum EvictionReason {
  /** A workload of higher priority in the same queue needed its quota. */
  Preempted,
  /** Its queue ran on quota borrowed from the preemptor's queue, which took it back. */
  Reclaimed,
  /**
   * It did not run within its start timeout after it was admitted (free devices fragmented, a gang
   * that does not fit): its quota goes back, and no preemptor takes it.
   */
  StartTimeout,
  /**
   * Its queue, set to {@link dev.quartermaster.api.queue.OverQuota#Evict}, used more than it may
   * hold (its quota lowered under what it admitted): evicted to bring the queue back within; no
   * preemptor takes it.
   */
  OverQuota;

  /** Whether another workload (the eviction's {@code by}) chose it as a victim. */
  public boolean hasPreemptor() {
    return this != StartTimeout && this != OverQuota;
  }
}
