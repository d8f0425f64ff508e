package dev.quartermaster.api.queue;

import java.util.List;
import java.util.Map;

/**
 * @param queues the cohort's queues as the writer saw them: the store reads each one and refuses
 *     the write if one is no longer of this cohort, so lending is counted only from queues that
 *     lend now
 * @param admitted workload name → its admission
 * @param nominated workload name → the victims it chose and waits for (it uses no quota)
 */
public record QuotaLedgerSpec(
    List<String> queues, Map<String, Admitted> admitted, Map<String, Nomination> nominated) {
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
