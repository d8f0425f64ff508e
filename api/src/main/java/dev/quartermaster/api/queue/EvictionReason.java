package dev.quartermaster.api.queue;

/** Why an admitted workload is stopped for another. */
public enum EvictionReason {
  /** A workload of higher priority in the same queue needed its quota. */
  Preempted,
  /** Its queue ran on quota borrowed from the preemptor's queue, which took it back. */
  Reclaimed
}
