package dev.quartermaster.store.registry;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Txn.Compare;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * What queues promise, in the store, whoever writes: one part a promise, each refusing with a 409
 * (a 422 for an entry's terms) naming the field and the rule.
 *
 * <ul>
 *   <li>{@link AdmissionMoveGuard}: an admission entry moves only as {@code AdmissionTransitions}
 *       lets it (nothing unadmitted evicted, no eviction taken back, no start unmarked, no start
 *       timeout of what started);
 *   <li>{@link AdmittedWorkloadGuard}: ADMIT — an entry or nomination is of its live workload,
 *       through its own queue, on the terms the store computes ({@link AdmissionTerms}); a worker
 *       is created only within its workload's admission, an admission shrinks only as its surplus
 *       tasks go, and an admitted workload keeps its queue;
 *   <li>{@link EvictionGuard}: Q2 — an eviction is rightful ({@code RightfulEviction#promised}), of
 *       a nominated preemptor's choosing, never a cycle, and its entry is released only once its
 *       tasks have stopped; a start timeout's and an over-quota eviction name no preemptor, and the
 *       latter takes only from a queue over its nominal quota that asked for it;
 *   <li>{@link CohortQuotaGuard}: Q1 — a cohort's admitted usage stays within its queues' nominal
 *       quota plus what the cohort lends, and a ledger lists its own cohort's queues.
 * </ul>
 *
 * Composed as the registry composes its guards ({@link WriteRules#all}), over one set of reads per
 * write: a key two parts read is read once, and its compare joins the transaction once.
 */
final class QuotaGuard implements WriteRules {
  private final WriteRules parts;

  QuotaGuard(StoredObjects stored) {
    this.parts =
        WriteRules.all(
            List.of(
                new AdmissionMoveGuard(),
                new AdmittedWorkloadGuard(stored),
                new EvictionGuard(stored),
                new CohortQuotaGuard(stored)));
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    return distinct(parts.beforeCreate(once(reads), next));
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    return distinct(parts.beforeWrite(once(reads), current, next));
  }

  @Override
  public List<Compare> beforeDelete(Reads reads, ApiObject current) {
    return distinct(parts.beforeDelete(once(reads), current));
  }

  /**
   * {@code reads}, each key's value read once for one write's judgment; a revision asked of a key
   * it read is answered by the value read.
   */
  private static Reads once(Reads reads) {
    var seen = new HashMap<String, Optional<KeyValue>>();
    return new Reads() {
      @Override
      public Optional<KeyValue> get(String key) {
        return seen.computeIfAbsent(key, reads::get);
      }

      @Override
      public boolean stillAt(String key, long modRevision) {
        var read = seen.get(key);
        return read == null
            ? reads.stillAt(key, modRevision)
            : read.filter(kv -> !BatchReads.planned(kv) && kv.modRevision() == modRevision)
                .isPresent();
      }
    };
  }

  private static List<Compare> distinct(List<Compare> compares) {
    return compares.size() < 2 ? compares : List.copyOf(new LinkedHashSet<>(compares));
  }
}
