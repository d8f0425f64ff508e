package dev.quartermaster.api.queue;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A queue's quota and its place in a cohort. Quotas are counts of devices per device class ({@code
 * gpu: 16}); a class the quota does not name is not limited by this queue.
 *
 * @param cohort the cohort whose queues lend each other unused quota; empty: a cohort of its own
 *     (named as the queue)
 * @param quota nominal quota: device class → devices this queue may always use
 * @param borrowingLimit class → at most this many devices above the nominal quota, borrowed from
 *     the cohort; a class not named may borrow whatever the cohort lends
 * @param lendingLimit class → at most this many of its unused devices lent to the cohort; a class
 *     not named lends all it does not use
 * @param weight the queue's share of what is borrowed (fair sharing by weighted dominant share); at
 *     least 1, default 1
 * @param ordering how its pending workloads are taken
 * @param overQuota what it does while it uses more than it may hold (a quota lowered under what it
 *     admitted): {@link OverQuota#Wait} (default) or {@link OverQuota#Evict}
 */
public record QueueSpec(
    Optional<String> cohort,
    Map<String, Integer> quota,
    Map<String, Integer> borrowingLimit,
    Map<String, Integer> lendingLimit,
    Integer weight,
    QueueOrdering ordering,
    OverQuota overQuota) {
  /** The queue every workload that names none goes to: no quota, a cohort of its own. */
  public static final QueueSpec UNLIMITED =
      new QueueSpec(
          Optional.empty(), Map.of(), Map.of(), Map.of(), 1, QueueOrdering.BestEffortFIFO);

  /** A queue that waits while it is over quota ({@link OverQuota#Wait}). */
  public QueueSpec(
      Optional<String> cohort,
      Map<String, Integer> quota,
      Map<String, Integer> borrowingLimit,
      Map<String, Integer> lendingLimit,
      Integer weight,
      QueueOrdering ordering) {
    this(cohort, quota, borrowingLimit, lendingLimit, weight, ordering, OverQuota.Wait);
  }

  public QueueSpec {
    cohort = cohort == null ? Optional.empty() : cohort;
    quota = quota == null ? Map.of() : Map.copyOf(quota);
    borrowingLimit = borrowingLimit == null ? Map.of() : Map.copyOf(borrowingLimit);
    lendingLimit = lendingLimit == null ? Map.of() : Map.copyOf(lendingLimit);
    weight = weight == null ? 1 : weight;
    ordering = ordering == null ? QueueOrdering.BestEffortFIFO : ordering;
    overQuota = overQuota == null ? OverQuota.Wait : overQuota;
  }

  /** This spec with {@code quota} instead. */
  public QueueSpec withQuota(Map<String, Integer> quota) {
    return new QueueSpec(cohort, quota, borrowingLimit, lendingLimit, weight, ordering, overQuota);
  }

  /** This spec with {@code overQuota} instead. */
  public QueueSpec withOverQuota(OverQuota overQuota) {
    return new QueueSpec(cohort, quota, borrowingLimit, lendingLimit, weight, ordering, overQuota);
  }

  /** The nominal quota of {@code deviceClass}; empty when this queue does not limit it. */
  public OptionalInt nominal(String deviceClass) {
    var n = quota.get(deviceClass);
    return n == null ? OptionalInt.empty() : OptionalInt.of(n);
  }

  /**
   * Whether it limits any of {@code deviceClasses}: what a workload of such classes holds, another
   * could be admitted with (its start timeout applies; in a queue without such a quota, nobody
   * waits for what it holds).
   */
  public boolean limitsAny(java.util.Collection<String> deviceClasses) {
    return deviceClasses.stream().anyMatch(quota::containsKey);
  }

  /** The cohort of the queue called {@code queue} with this spec. */
  public String cohortOf(String queue) {
    return cohort.orElse(queue);
  }
}
