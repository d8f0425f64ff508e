package dev.quartermaster.control.allocator;

/**
 * A change in the cluster that can make a parked key fit (see {@link Waiters}): the kinds the
 * kube-scheduler calls cluster events. Each is told after the change it names is visible to a
 * decision (in the informers' caches and the {@link DeviceIndex}).
 */
sealed interface WakeEvent {

  /** Changes anywhere in the cluster. */
  enum Cluster implements WakeEvent {
    /** A node came or went, or its readiness or spec changed (ready, cordoned, fenced). */
    NODES,
    /**
     * A node's allocation record changed: devices taken, or freed (a claim released, garbage
     * cleaned).
     */
    RECORDS,
    /** A node published, changed or withdrew devices (its slices: added, healthy, gone). */
    SLICES,
    /** A device class was created or changed. */
    DEVICE_CLASSES,
    /** A compute domain was created, changed or deleted. */
    COMPUTE_DOMAINS
  }

  /** A placement on {@code node} finished committing, so the node may be placed on again. */
  record CommitEnded(String node) implements WakeEvent {}

  /** {@code node}'s record has adopted the claims allocated there before records existed. */
  record RecordAdopted(String node) implements WakeEvent {}
}
