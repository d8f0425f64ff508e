package dev.quartermaster.api.queue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One admitted workload in its cohort's ledger.
 *
 * @param uid the workload's uid: a workload deleted and re-created under the same name is not
 *     admitted by its predecessor's entry
 * @param queue the queue it was admitted through
 * @param replicas group → how many of its workers are admitted: the workload controller creates no
 *     more (a scale-up waits for its own admission; a scale-down is released at once)
 * @param usage device class → devices it may use (every replica's claim templates)
 * @param priority its priority class's value when admitted
 * @param at when it was admitted
 * @param eviction set once another workload chose it as a victim: its tasks are stopped, and the
 *     entry is released when they are gone; an eviction is never taken back
 * @param preempted the uids of the workloads evicted so that this one could be admitted: none of
 *     them may evict it while it stays admitted (the anti-cycle rule)
 * @param started set once every task it needs ran under this admission: its start timeout no longer
 *     applies (never unset while the entry stays)
 */
public record Admitted(
    String uid,
    String queue,
    Map<String, Integer> replicas,
    Map<String, Integer> usage,
    int priority,
    Instant at,
    Optional<Eviction> eviction,
    List<String> preempted,
    boolean started) {
  public Admitted {
    uid = uid == null ? "" : uid;
    queue = queue == null ? "" : queue;
    replicas = sorted(replicas);
    usage = sorted(usage);
    at = at == null ? Instant.EPOCH : at;
    eviction = eviction == null ? Optional.empty() : eviction;
    preempted = preempted == null ? List.of() : List.copyOf(preempted);
  }

  public Admitted(
      String uid,
      String queue,
      Map<String, Integer> replicas,
      Map<String, Integer> usage,
      int priority,
      Instant at,
      Optional<Eviction> eviction,
      List<String> preempted) {
    this(uid, queue, replicas, usage, priority, at, eviction, preempted, false);
  }

  /** An admission that evicted nobody and is not evicted. */
  public Admitted(
      String uid,
      String queue,
      Map<String, Integer> replicas,
      Map<String, Integer> usage,
      int priority,
      Instant at) {
    this(uid, queue, replicas, usage, priority, at, Optional.empty(), List.of());
  }

  /** Whether another workload chose it as a victim. */
  public boolean evicting() {
    return eviction.isPresent();
  }

  /** This entry chosen as a victim. */
  public Admitted evictedBy(Eviction e) {
    return new Admitted(
        uid, queue, replicas, usage, priority, at, Optional.of(e), preempted, started);
  }

  /** This entry once every task its workload needs ran. */
  public Admitted markStarted() {
    return new Admitted(uid, queue, replicas, usage, priority, at, eviction, preempted, true);
  }

  /** This entry with {@code replicas} and {@code usage} instead (a scale-down), the rest kept. */
  public Admitted resized(Map<String, Integer> replicas, Map<String, Integer> usage) {
    return new Admitted(uid, queue, replicas, usage, priority, at, eviction, preempted, started);
  }

  /** This entry keeping {@code preempted} as whom it evicted, the rest kept. */
  public Admitted withPreempted(List<String> preempted) {
    return new Admitted(uid, queue, replicas, usage, priority, at, eviction, preempted, started);
  }

  private static Map<String, Integer> sorted(Map<String, Integer> m) {
    return m == null
        ? Map.of()
        : java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(m));
  }
}
