package dev.quartermaster.api.queue;

import java.time.Instant;

/**
 * An admitted workload being stopped for another: its entry stays in the ledger, and counts, until
 * every one of its tasks is gone; then it is released and the workload waits in its queue again.
 *
 * @param by the preemptor's name
 * @param byUid the preemptor's uid
 * @param reason whether a higher priority preempted it or its queue's lender reclaimed the quota
 * @param at when it was chosen
 */
public record Eviction(String by, String byUid, EvictionReason reason, Instant at) {
  public Eviction {
    by = by == null ? "" : by;
    byUid = byUid == null ? "" : byUid;
    reason = reason == null ? EvictionReason.Preempted : reason;
    at = at == null ? Instant.EPOCH : at;
  }
}
