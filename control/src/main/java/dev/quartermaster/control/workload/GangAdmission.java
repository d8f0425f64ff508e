package dev.quartermaster.control.workload;

/**
 * Where a gang's workload stands with its queue, as far as its gang's line cares: a gang that is
 * not admitted, or whose workload is being evicted, does not wait for devices, and must not say so.
 */
enum GangAdmission {
  /** Admitted (or run without queues): its members are made, and the allocator places them. */
  Admitted,
  /** Not admitted yet: no member exists before its queue admits the workload. */
  Waiting,
  /** Chosen as a victim: its members stop, and it waits in its queue again. */
  Evicted
}
