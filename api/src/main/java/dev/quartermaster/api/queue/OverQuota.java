package dev.quartermaster.api.queue;

/**
 * What a queue does while its admitted workloads use more than it may hold (its quota lowered under
 * what it admitted): wait for them to finish, or take the excess back now.
 */
public enum OverQuota {
  /** Nothing admitted is stopped; nothing more of the class is admitted until enough finishes. */
  Wait,
  /**
   * Its workloads are evicted ({@link EvictionReason#OverQuota}), lowest priority first, then the
   * most recently admitted, just enough to bring it back within what it may hold.
   */
  Evict
}
