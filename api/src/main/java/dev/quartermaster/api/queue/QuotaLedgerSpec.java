package dev.quartermaster.api.queue;

import java.util.List;
import java.util.Map;

/**
 * @param queues the cohort's queues as the writer saw them: the store reads each one and refuses
 *     the write if one is no longer of this cohort, so lending is counted only from queues that
 *     lend now
 * @param admitted workload name → its admission
 * @param nominated workload name → the victims it chose and waits for (it uses no quota)
 * @param requeued workload name → the backoff it waits out after an eviction before it may be
 *     admitted again (it uses no quota)
 */
public record QuotaLedgerSpec(
    List<String> queues,
    Map<String, Admitted> admitted,
    Map<String, Nomination> nominated,
    Map<String, Requeue> requeued) {
  public static final QuotaLedgerSpec EMPTY = new QuotaLedgerSpec(List.of(), Map.of());

  public QuotaLedgerSpec {
    queues = queues == null ? List.of() : List.copyOf(queues);
    // Sorted: whoever walks the admissions (triggers, the simulation's replay) walks them in one
    // order.
    admitted =
        admitted == null
            ? Map.of()
            : java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(admitted));
    nominated =
        nominated == null
            ? Map.of()
            : java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(nominated));
    requeued =
        requeued == null
            ? Map.of()
            : java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(requeued));
  }

  public QuotaLedgerSpec(
      List<String> queues, Map<String, Admitted> admitted, Map<String, Nomination> nominated) {
    this(queues, admitted, nominated, Map.of());
  }

  /** This ledger with {@code next} as its requeued workloads, the rest kept. */
  public QuotaLedgerSpec withRequeued(Map<String, Requeue> next) {
    return new QuotaLedgerSpec(queues, admitted, nominated, next);
  }

  /** This ledger with {@code next} as its admitted workloads, the rest kept. */
  public QuotaLedgerSpec withAdmitted(Map<String, Admitted> next) {
    return new QuotaLedgerSpec(queues, next, nominated, requeued);
  }

  /**
   * The entries evicted in this ledger and not in {@code before} (absent there, or not evicted):
   * what one write chose, for whoever judges or counts evictions.
   */
  public Map<String, Admitted> newlyEvicted(QuotaLedgerSpec before) {
    var out = new java.util.TreeMap<String, Admitted>();
    admitted.forEach(
        (name, a) -> {
          var was = before.admitted().get(name);
          if (a.evicting() && (was == null || !was.evicting())) {
            out.put(name, a);
          }
        });
    return out;
  }

  /** A ledger in which nobody waits for victims. */
  public QuotaLedgerSpec(List<String> queues, Map<String, Admitted> admitted) {
    this(queues, admitted, Map.of());
  }
}
