package dev.quartermaster.api.queue;

import java.time.Instant;

/**
 * A workload evicted and released that waits out a backoff before its queue may admit it again:
 * neither a preempted victim nor one that did not start in time is taken back at once. The wait
 * doubles with each eviction in a row (10 s to 5 min); the record goes once the workload has run
 * under a new admission, finished, or is gone.
 *
 * @param uid the workload's uid (a workload made again under the name starts afresh)
 * @param count how many evictions in a row it had without running in between
 * @param reason why the last one evicted it
 * @param at when its entry was released (the admission controller's clock; for people)
 * @param delaySeconds how long it waits, timed by the admission controller from when it first sees
 *     this record (so a stepped clock neither shortens nor stretches it)
 */
public record Requeue(String uid, int count, EvictionReason reason, Instant at, long delaySeconds) {
  public Requeue {
    uid = uid == null ? "" : uid;
    reason = reason == null ? EvictionReason.Preempted : reason;
    at = at == null ? Instant.EPOCH : at;
  }

  /** When its wait is over, on the clock that wrote {@code at}, to the second (for people). */
  public Instant until() {
    var end = at.plusSeconds(delaySeconds);
    return end.getNano() == 0 ? end : Instant.ofEpochSecond(end.getEpochSecond() + 1);
  }
}
