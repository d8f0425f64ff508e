package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.queue.AdmissionRule;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.RightfulEviction;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Q2 in the store, whoever writes: a workload is evicted only rightfully, and whole. It refuses,
 * with a 409 naming the field and the rule:
 *
 * <ul>
 *   <li>an eviction whose preemptor is not nominated for it in the same write, that is not rightful
 *       ({@link RightfulEviction#promised}), or that evicts a workload's own preemptor ({@link
 *       RightfulEviction#cycles});
 *   <li>a {@code StartTimeout} eviction naming a preemptor;
 *   <li>an {@code OverQuota} eviction naming a preemptor, or of a queue not set to {@code
 *       overQuota: Evict}, or not using, in the ledger before the write, more of a class the victim
 *       uses than its nominal quota of it.
 * </ul>
 *
 * An evicted entry released while one of its tasks still runs is {@link AdmittedWorkloadGuard}'s to
 * refuse, as any live workload's entry released so. Which moves an entry may make at all (only an
 * admitted workload is evicted, an eviction is never taken back) is {@link AdmissionMoveGuard}'s to
 * judge.
 */
final class EvictionGuard implements WriteRules {
  private final StoredObjects stored;

  EvictionGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    if (!(next instanceof QuotaLedger l)) {
      return List.of();
    }
    var seen = new ComparedReads(reads, stored);
    evictions(seen, QuotaLedgerSpec.EMPTY, l);
    return seen.compares();
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (!(current instanceof QuotaLedger c && next instanceof QuotaLedger l)) {
      return List.of();
    }
    var seen = new ComparedReads(reads, stored);
    evictions(seen, c.spec(), l);
    return seen.compares();
  }

  /**
   * Each entry newly evicted names a preemptor nominated in the same write for it, is rightful as
   * the ledger stood before, and did not evict that preemptor itself; or is a start timeout's or an
   * over-quota eviction, which names none.
   */
  private static void evictions(ComparedReads reads, QuotaLedgerSpec before, QuotaLedger next) {
    var evicted = next.spec().newlyEvicted(before);
    if (evicted.isEmpty()) {
      return;
    }
    var specs = ListedQueues.specs(reads, next);
    var quota = CohortQuota.of(specs, before.admitted());
    evicted.forEach(
        (name, a) -> {
          if (!before.admitted().containsKey(name)) {
            return; // nothing admitted to evict: AdmissionMoveGuard refuses it
          }
          var field = "spec.admitted." + name + ".eviction";
          var e = a.eviction().get();
          if (e.reason() == EvictionReason.OverQuota) {
            overQuota(next, field, a, quota, specs);
            return;
          }
          if (!e.reason().hasPreemptor()) {
            if (!e.by().isEmpty() || !e.byUid().isEmpty()) {
              throw conflict(next, field + ": " + AdmissionRule.UNSTARTED_ONLY.text());
            }
            return;
          }
          var n = next.spec().nominated().get(e.by());
          if (n == null || !n.uid().equals(e.byUid()) || !n.victims().contains(a.uid())) {
            throw conflict(
                next,
                field
                    + ": "
                    + e.by()
                    + " is not nominated for it; a preemptor names its victims in the same"
                    + " write");
          }
          if (RightfulEviction.cycles(a, e.byUid())) {
            throw conflict(
                next,
                field
                    + ": "
                    + name
                    + " evicted "
                    + e.by()
                    + " to be admitted; a preempted workload never evicts its preemptor back");
          }
          var rightful = RightfulEviction.promised(n.queue(), n.priority(), a, quota);
          if (!rightful.equals(Optional.of(e.reason()))) {
            throw conflict(
                next,
                field
                    + ": "
                    + e.reason()
                    + " by "
                    + e.by()
                    + " is not rightful; a victim is of the preemptor's queue and lower"
                    + " priority, or of a queue that runs on borrowed quota");
          }
        });
  }

  /**
   * An {@code OverQuota} eviction names no preemptor and is of a queue set to {@code overQuota:
   * Evict} that, in the ledger before the write, used more of a class the victim uses than its
   * nominal quota of it. Why this is enough: a queue within its nominal quota of every class is
   * owed that quota whatever the cohort does (Q1 lends only what a queue does not use), so no
   * writer may take a workload from it this way; and a queue over its nominal quota of a class
   * holds that class only on what the cohort lends, which the operator's {@code Evict} gives up.
   * Judged on the ledger before the write, so several victims of one write each needed the queue to
   * be over before any of them went; how many are needed is the admission controller's to choose
   * (the simulation's Q5 checks it took no more).
   */
  private static void overQuota(
      QuotaLedger next,
      String field,
      Admitted a,
      CohortQuota before,
      Map<String, QueueSpec> specs) {
    var e = a.eviction().get();
    var spec = Optional.ofNullable(specs.get(a.queue()));
    boolean asked = spec.map(q -> q.overQuota() == OverQuota.Evict).orElse(false);
    boolean over = a.usage().keySet().stream().anyMatch(c -> before.borrowed(a.queue(), c) > 0);
    if (!e.by().isEmpty() || !e.byUid().isEmpty() || !asked || !over) {
      throw conflict(
          next,
          field
              + ": OverQuota evicts only a workload of a queue set to overQuota: Evict that uses"
              + " more of a class the workload uses than its nominal quota, and names no"
              + " preemptor (queue "
              + a.queue()
              + ": overQuota "
              + spec.map(QueueSpec::overQuota).orElse(OverQuota.Wait)
              + ", quota "
              + spec.map(q -> q.quota().toString()).orElse("{}")
              + ", uses "
              + new java.util.TreeSet<>(a.usage().keySet())
                  .stream().map(c -> c + " " + before.used(a.queue(), c)).toList()
              + (e.by().isEmpty() ? "" : "; names " + e.by())
              + ")");
    }
  }

  private static ApiException conflict(ApiObject object, String message) {
    return new ApiException(Reason.Conflict, object.ref() + ": " + message);
  }
}
