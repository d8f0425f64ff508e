package dev.quartermaster.api.queue;

import java.time.Instant;
import java.util.Map;

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
 */
public record Admitted(
    String uid,
    String queue,
    Map<String, Integer> replicas,
    Map<String, Integer> usage,
    int priority,
    Instant at) {
  public Admitted {
    uid = uid == null ? "" : uid;
    queue = queue == null ? "" : queue;
    replicas = sorted(replicas);
    usage = sorted(usage);
    at = at == null ? Instant.EPOCH : at;
  }

  private static Map<String, Integer> sorted(Map<String, Integer> m) {
    return m == null
        ? Map.of()
        : java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(m));
  }
}
