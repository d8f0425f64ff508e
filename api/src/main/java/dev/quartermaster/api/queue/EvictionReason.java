package dev.quartermaster.api.queue;

/** Why an admitted workload is stopped: for another, or because it did not start in time. */
public enum EvictionReason {
  /** A workload of higher priority in the same queue needed its quota. */
  Preempted,
  /** Its queue ran on quota borrowed from the preemptor's queue, which took it back. */
  Reclaimed,
  /**
   * It did not run within its start timeout after it was admitted (free devices fragmented, a gang
   * that does not fit): its quota goes back, and no preemptor takes it.
   */
  StartTimeout;

  /** Whether another workload (the eviction's {@code by}) chose it as a victim. */
  public boolean hasPreemptor() {
    return this != StartTimeout;
  }
}
