package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.store.Txn.Compare;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Q1 in the store, whoever writes: a cohort's admitted usage stays within its queues' nominal quota
 * plus what the cohort lends ({@link CohortQuota}), judged in the write's own transaction, except
 * what was admitted before a quota was lowered, which only goes down: no write admits more of a
 * class the cohort is over quota of. It refuses, with a 409 naming the rule:
 *
 * <ul>
 *   <li>a ledger write that admits more (a new entry, or more usage) and breaks Q1, or lists a
 *       queue that is not of the ledger's cohort ({@link ListedQueues});
 *   <li>a ledger write that adds to {@code spec.queues} a queue that does not exist or is of
 *       another cohort (each queue is in its own cohort's ledger only), and a ledger's delete while
 *       it admits anything;
 *   <li>a queue's delete or move to another cohort that would break Q1 for what is admitted now
 *       (others borrow what it lends), or that moves a queue with admitted workloads. A quota
 *       lowered under what is admitted is taken: Q1 then holds in its second form, what was
 *       admitted before only goes down (a ledger write that admits more of an over-quota class is
 *       refused), so the lowered quota takes effect as those workloads finish or are reclaimed.
 * </ul>
 *
 * Every queue the ledger lists, and the ledger itself, join the transaction's compares, so an
 * admission and a quota change racing each other cannot both win. A ledger write that only releases
 * breaks no quota.
 */
final class CohortQuotaGuard implements WriteRules {
  private final StoredObjects stored;

  CohortQuotaGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    return next instanceof QuotaLedger l ? ledgerWrite(reads, QuotaLedgerSpec.EMPTY, l) : List.of();
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    return switch (next) {
      case QuotaLedger l -> ledgerWrite(reads, ((QuotaLedger) current).spec(), l);
      case Queue q when !((Queue) current).spec().equals(q.spec()) ->
          queueChange(reads, (Queue) current, Optional.of(q));
      default -> List.of();
    };
  }

  @Override
  public List<Compare> beforeDelete(Reads reads, ApiObject current) {
    return switch (current) {
      case Queue q -> queueChange(reads, q, Optional.empty());
      case QuotaLedger l -> ledgerDelete(l);
      default -> List.of();
    };
  }

  /**
   * A ledger is deleted only once it admits nothing: deleted while a workload ran, the task ran
   * unadmitted and the cohort stayed stuck. Its revision is the delete's own compare, so an
   * admission racing the delete fails one of them.
   */
  private static List<Compare> ledgerDelete(QuotaLedger l) {
    var admitted = l.spec().admitted();
    if (!admitted.isEmpty()) {
      throw conflict(
          l,
          "cannot be deleted while it admits "
              + admitted.size()
              + " workload(s) "
              + admitted.keySet()
              + "; the admission controller releases each once it finishes or is deleted");
    }
    return List.of();
  }

  /**
   * A queue a write adds to {@code spec.queues} exists and is of the ledger's cohort, even when
   * nothing is admitted through it yet; one listed before and gone or moved since is not judged (a
   * release must not wait on it). A write that admits more judges every queue listed, and Q1 over
   * the classes it admits more of.
   */
  private List<Compare> ledgerWrite(Reads reads, QuotaLedgerSpec before, QuotaLedger next) {
    var seen = new ComparedReads(reads, stored);
    // A set, not the list: a cohort may list 10,000 queues, and a look-up in the list for each of
    // them made every admission quadratic in the cohort's queues (10^8 comparisons a write).
    var listedBefore = new java.util.HashSet<>(before.queues());
    for (var name : next.spec().queues()) {
      if (!listedBefore.contains(name)) {
        ListedQueues.of(seen, next, name);
      }
    }
    var added = new HashMap<String, Admitted>();
    next.spec()
        .admitted()
        .forEach(
            (w, a) -> {
              var was = before.admitted().get(w);
              if (was == null || !was.equals(a)) {
                added.put(w, a);
              }
            });
    // An entry changed only otherwise (a start marked, an eviction) admits nothing more through
    // no other queue: Q1 holds as it did, without the listed queues' reads (at 1,000 entries a
    // start's mark spent a quarter of its judging on them).
    if (added.entrySet().stream()
        .allMatch(e -> sameCharge(before.admitted().get(e.getKey()), e.getValue()))) {
      return seen.compares();
    }
    var specs = ListedQueues.specs(seen, next);
    var breach = CohortQuota.of(specs, next.spec().admitted()).breach(grown(before, added));
    if (breach.isPresent()) {
      throw conflict(
          next,
          "spec.admitted: over quota: "
              + breach.get()
              + "; a cohort's queues use at most their nominal quota plus what the cohort lends"
              + " (what was admitted before a quota was lowered only goes down)");
    }
    return seen.compares();
  }

  /** Whether {@code next} charges what {@code was} charged: the same workload, queue and usage. */
  private static boolean sameCharge(Admitted was, Admitted next) {
    return was != null
        && was.uid().equals(next.uid())
        && was.queue().equals(next.queue())
        && was.usage().equals(next.usage());
  }

  /**
   * The classes of which an entry of {@code added} is admitted more than {@code before} admitted it
   * (a new entry, or a re-created workload's, counts whole). Only those are judged: a quota lowered
   * under what is admitted leaves its cohort over quota until enough of it finishes, and meanwhile
   * a release, an eviction or a scale-down (which admit nothing more) must still be written.
   */
  private static java.util.Set<String> grown(QuotaLedgerSpec before, Map<String, Admitted> added) {
    var classes = new java.util.TreeSet<String>();
    added.forEach(
        (name, a) -> {
          var was =
              Optional.ofNullable(before.admitted().get(name))
                  .filter(b -> b.uid().equals(a.uid()))
                  .map(Admitted::usage)
                  .orElse(Map.of());
          a.usage()
              .forEach(
                  (c, n) -> {
                    if (n > was.getOrDefault(c, 0)) {
                      classes.add(c);
                    }
                  });
        });
    return classes;
  }

  private List<Compare> queueChange(Reads reads, Queue current, Optional<Queue> next) {
    var cohort = current.cohort();
    var seen = new ComparedReads(reads, stored);
    var ledger = seen.get(Kinds.QUOTA_LEDGER, cohort);
    if (ledger.isEmpty()) {
      return seen.compares();
    }
    var name = current.metadata().name();
    var admitted = ledger.get().spec().admitted();
    long own = admitted.values().stream().filter(a -> a.queue().equals(name)).count();
    boolean leaves = next.map(q -> !q.cohort().equals(cohort)).orElse(true);
    if (own > 0 && leaves) {
      throw conflict(
          current,
          (next.isEmpty() ? "cannot be deleted" : "spec.cohort cannot change")
              + " while "
              + own
              + " workload(s) are admitted through it in cohort "
              + cohort
              + "; it can once they finish or are deleted");
    }
    if (!leaves) {
      // A quota lowered under what is admitted is taken: it takes effect as those workloads
      // finish (or are reclaimed), since nothing more of an over-quota class is admitted
      // (ledgerWrite, which reads this queue in its own transaction).
      return seen.compares();
    }
    if (borrowsNothing(seen, ledger.get(), name, next)) {
      return seen.compares();
    }
    var specs = new HashMap<String, QueueSpec>();
    for (var q : ledger.get().spec().queues()) {
      if (q.equals(name)) {
        continue;
      }
      seen.get(Kinds.QUEUE, q)
          .filter(x -> x.cohort().equals(cohort))
          .ifPresent(x -> specs.put(q, x.spec()));
    }
    var breach = CohortQuota.of(specs, admitted).breach();
    if (breach.isPresent()) {
      throw conflict(
          current,
          (next.isEmpty() ? "cannot be deleted" : "spec.cohort cannot change")
              + ": cohort "
              + cohort
              + " would be over quota for what is admitted now ("
              + breach.get()
              + "); lower its quota instead (taken at once, in effect as those workloads finish),"
              + " or make the change once they have");
    }
    return seen.compares();
  }

  /**
   * Whether, with {@code name} deleted ({@code next} empty) or moved, no queue of the cohort would
   * borrow anything, judged from the queues its admitted workloads use alone. Then Q1 holds
   * whatever the other queues lend (nothing is owed to them), and they need not be read: with
   * 10,000 queues in one cohort, every queue delete read them all (2-4 s each). The ledger's read
   * joins the compares, so an admission that starts borrowing meanwhile fails one of the two
   * writes; a queue without admitted workloads that changes meanwhile cannot make anyone borrow.
   * False (judge in full) when an entry names a queue that is not of the ledger or of the cohort.
   */
  private static boolean borrowsNothing(
      ComparedReads reads, QuotaLedger ledger, String name, Optional<Queue> next) {
    var admitted = ledger.spec().admitted();
    var used = new java.util.TreeSet<String>();
    admitted.values().forEach(a -> used.add(a.queue()));
    var specs = new HashMap<String, QueueSpec>();
    var listed = new java.util.HashSet<>(ledger.spec().queues());
    for (var q : used) {
      if (!listed.contains(q)) {
        return false;
      }
      if (q.equals(name)) {
        if (next.isEmpty() || !next.get().cohort().equals(ledger.metadata().name())) {
          return false;
        }
        specs.put(q, next.get().spec());
        continue;
      }
      var queue =
          reads.get(Kinds.QUEUE, q).filter(x -> x.cohort().equals(ledger.metadata().name()));
      if (queue.isEmpty()) {
        return false;
      }
      specs.put(q, queue.get().spec());
    }
    var quota = CohortQuota.of(specs, admitted);
    for (var a : admitted.values()) {
      for (var c : a.usage().keySet()) {
        if (quota.borrowed(a.queue(), c) > 0) {
          return false;
        }
      }
    }
    return true;
  }

  private static ApiException conflict(ApiObject object, String message) {
    return new ApiException(Reason.Conflict, object.ref() + ": " + message);
  }
}
