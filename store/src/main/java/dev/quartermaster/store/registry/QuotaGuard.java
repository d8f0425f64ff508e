package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.WorkerNames;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.store.Txn.Compare;
import java.util.ArrayList;
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
 *       queue that is not of the ledger's cohort, or admits a workload that is gone, re-created,
 *       being deleted or of another queue;
 *   <li>with a 422, an entry or a nomination whose usage or priority is not what its workload and
 *       priority class give ({@link AdmissionTerms}): the store computes them, it does not take the
 *       writer's word;
 *   <li>a ledger write that adds to {@code spec.queues} a queue that does not exist or is of
 *       another cohort (each queue is in its own cohort's ledger only), and a ledger's delete while
 *       it admits anything;
 *   <li>a queue's delete or move to another cohort that would break Q1 for what is admitted now
 *       (others borrow what it lends), or that moves a queue with admitted workloads. A quota
 *       lowered under what is admitted is taken: Q1 then holds in its second form, what was
 *       admitted before only goes down (a ledger write that admits more of an over-quota class is
 *       refused), so the lowered quota takes effect as those workloads finish or are reclaimed;
 *   <li>moving an admitted workload to another queue;
 *   <li>the workload controller's create of a worker beyond what its queue admitted (its cache of
 *       the ledger may lag a shrink);
 *   <li>Q2: an eviction whose preemptor is not nominated for it in the same write, that is not
 *       rightful (neither lower priority in the preemptor's queue nor of a queue that borrows), or
 *       that evicts a workload's own preemptor (the anti-cycle rule); an eviction taken back; an
 *       evicted entry released while one of its tasks still runs;
 *   <li>the start timeout's: a {@code StartTimeout} eviction of an admission marked started, or one
 *       naming a preemptor; an admission's {@code started} mark taken back;
 *   <li>an {@code OverQuota} eviction naming a preemptor, or of a queue not set to {@code
 *       overQuota: Evict}, or not using, in the ledger before the write, more of a class the victim
 *       uses than its nominal quota of it.
 * </ul>
 *
 * Every queue the ledger lists, and the ledger itself, join the transaction's compares, so an
 * admission and a quota change racing each other cannot both win. A ledger write that only releases
 * breaks no quota; only an evicted entry's release is judged (its tasks must be gone).
 */
final class QuotaGuard implements WriteRules {
  private final AdmissionTerms terms;

  QuotaGuard(StoredObjects stored) {
    this.terms = new AdmissionTerms(stored);
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    return switch (next) {
      case QuotaLedger l -> ledgerWrite(reads, QuotaLedgerSpec.EMPTY, l);
      case Task t when t.metadata().labels().containsKey(SpecDecision.CREATED_AT) ->
          workerCreate(reads, t);
      default -> List.of();
    };
  }

  /**
   * A workload's worker is created only within what its queue admitted: the controller's cache of
   * the ledger may lag a shrink, so the store judges it. A workload whose queue does not exist (the
   * workload controller run without queues) is not judged.
   */
  private List<Compare> workerCreate(Reads reads, Task t) {
    var owner = t.metadata().owner().filter(o -> o.kind().equals(Kinds.WORKLOAD.name()));
    if (owner.isEmpty()) {
      return List.of();
    }
    var compares = new ArrayList<Compare>();
    var w = read(reads, Kinds.WORKLOAD, owner.get().name(), compares);
    if (w.isEmpty() || !w.get().metadata().uid().equals(owner.get().uid())) {
      return compares;
    }
    var queue = read(reads, Kinds.QUEUE, w.get().spec().queueName(), compares);
    if (queue.isEmpty()) {
      return compares;
    }
    var ledger = read(reads, Kinds.QUOTA_LEDGER, queue.get().cohort(), compares);
    var entry =
        ledger
            .map(l -> l.spec().admitted().get(owner.get().name()))
            .filter(a -> a.uid().equals(owner.get().uid()));
    if (entry.map(Admitted::evicting).orElse(false)) {
      throw conflict(
          t,
          "workload "
              + owner.get().name()
              + " is being evicted ("
              + entry.get().eviction().get().reason()
              + (entry.get().eviction().get().by().isEmpty()
                  ? ""
                  : " by " + entry.get().eviction().get().by())
              + "); its workers are created again once its queue admits it again");
    }
    var name = t.metadata().name();
    var slot =
        w.get().spec().groups().stream()
            .filter(g -> WorkerNames.ordinal(owner.get().name(), g.name(), name).isPresent())
            .findFirst();
    if (slot.isEmpty()) {
      return compares; // not one of the workload's worker names: no slot of its admission
    }
    var group = slot.get().name();
    int ordinal = WorkerNames.ordinal(owner.get().name(), group, name).getAsInt();
    int admitted = entry.map(a -> a.replicas().getOrDefault(group, 0)).orElse(0);
    if (ordinal >= admitted) {
      throw conflict(
          t,
          "workload "
              + owner.get().name()
              + (entry.isEmpty()
                  ? " is not admitted by its queue " + w.get().spec().queueName()
                  : " is admitted for " + admitted + " worker(s) of group " + group)
              + "; a worker is created only once its queue admits it");
    }
    return compares;
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    return switch (next) {
      case QuotaLedger l -> ledgerWrite(reads, ((QuotaLedger) current).spec(), l);
      case Queue q when !((Queue) current).spec().equals(q.spec()) ->
          queueChange(reads, (Queue) current, Optional.of(q));
      case Workload w when !((Workload) current).spec().queueName().equals(w.spec().queueName()) ->
          queueMove(reads, (Workload) current);
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
   * An admission that started stays started while its entry stays: its start timeout must not apply
   * again to a workload that ran.
   */
  private static void stillStarted(QuotaLedgerSpec before, QuotaLedger next) {
    before
        .admitted()
        .forEach(
            (name, was) -> {
              var now = next.spec().admitted().get(name);
              if (was.started()
                  && now != null
                  && now.uid().equals(was.uid())
                  && now.at().equals(was.at())
                  && !now.started()) {
                throw conflict(
                    next,
                    "spec.admitted."
                        + name
                        + ".started: an admission that started stays started while its entry stays");
              }
            });
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

  private List<Compare> ledgerWrite(Reads reads, QuotaLedgerSpec before, QuotaLedger next) {
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
    var compares = new ArrayList<Compare>();
    stillStarted(before, next);
    releases(reads, before, next, compares);
    nominations(reads, before, next, compares);
    newlyListed(reads, before, next, compares);
    if (added.isEmpty()) {
      return compares;
    }
    var specs = new HashMap<String, QueueSpec>();
    for (var name : next.spec().queues()) {
      specs.put(name, queueOf(reads, next, name, compares).spec());
    }
    for (var e : added.entrySet()) {
      var w = read(reads, Kinds.WORKLOAD, e.getKey(), compares);
      var a = e.getValue();
      var why =
          w.isEmpty()
              ? Optional.of("does not exist")
              : !w.get().metadata().uid().equals(a.uid())
                  ? Optional.of("was re-created (uid " + w.get().metadata().uid() + ")")
                  : w.get().metadata().isDeleting()
                      ? Optional.of("is being deleted")
                      : !w.get().spec().queueName().equals(a.queue())
                          ? Optional.of("is of queue " + w.get().spec().queueName())
                          : Optional.<String>empty();
      if (why.isPresent()) {
        throw conflict(
            next,
            "spec.admitted."
                + e.getKey()
                + ": workload "
                + e.getKey()
                + " "
                + why.get()
                + "; only a live workload is admitted, through its own queue");
      }
      var was =
          Optional.ofNullable(before.admitted().get(e.getKey()))
              .filter(b -> b.uid().equals(a.uid()));
      terms.entry(reads, next, e.getKey(), was, a, w.get(), compares);
    }
    for (var e : added.entrySet()) {
      var was = before.admitted().get(e.getKey());
      if (was != null && was.uid().equals(e.getValue().uid())) {
        shrink(reads, next, e.getKey(), was, e.getValue(), compares);
      }
    }
    evictions(before, next, specs);
    var breach = CohortQuota.of(specs, next.spec().admitted()).breach(grown(before, added));
    if (breach.isPresent()) {
      throw conflict(
          next,
          "spec.admitted: over quota: "
              + breach.get()
              + "; a cohort's queues use at most their nominal quota plus what the cohort lends"
              + " (what was admitted before a quota was lowered only goes down)");
    }
    return compares;
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

  /**
   * A queue is in its own cohort's ledger only (the ledger is named as the cohort, so there is one
   * per cohort): a queue a write adds to {@code spec.queues} exists and is of the ledger's cohort,
   * even when nothing is admitted through it yet. A queue listed before and gone or moved since is
   * not judged here (a release must not wait on it); an admission judges every queue listed.
   */
  private void newlyListed(
      Reads reads, QuotaLedgerSpec before, QuotaLedger next, List<Compare> compares) {
    for (var name : next.spec().queues()) {
      if (!before.queues().contains(name)) {
        queueOf(reads, next, name, compares);
      }
    }
  }

  /** Queue {@code name} as stored, refused unless it exists and is of {@code ledger}'s cohort. */
  private Queue queueOf(Reads reads, QuotaLedger ledger, String name, List<Compare> compares) {
    var cohort = ledger.metadata().name();
    var queue = read(reads, Kinds.QUEUE, name, compares);
    if (queue.isEmpty() || !queue.get().cohort().equals(cohort)) {
      throw conflict(
          ledger,
          "spec.queues: queue "
              + name
              + (queue.isEmpty()
                  ? " does not exist"
                  : " is of cohort " + queue.get().cohort() + ", not " + cohort)
              + "; a ledger lists its own cohort's queues, as they are now");
    }
    return queue.get();
  }

  /**
   * Each nomination new or changed in this write is of its workload as it is ({@link
   * AdmissionTerms}).
   */
  private void nominations(
      Reads reads, QuotaLedgerSpec before, QuotaLedger next, List<Compare> compares) {
    next.spec()
        .nominated()
        .forEach(
            (name, n) -> {
              var was = Optional.ofNullable(before.nominated().get(name));
              if (!was.equals(Optional.of(n))) {
                terms.nomination(reads, next, name, was, n, compares);
              }
            });
  }

  /**
   * An evicted workload's entry is released only once its tasks have stopped (the quota covers what
   * runs, and no part of a gang keeps running unaccounted); an eviction is never taken back.
   */
  private void releases(
      Reads reads, QuotaLedgerSpec before, QuotaLedger next, List<Compare> compares) {
    before
        .admitted()
        .forEach(
            (name, was) -> {
              if (!was.evicting()) {
                return;
              }
              var now = next.spec().admitted().get(name);
              if (now != null) {
                if (!now.eviction().equals(was.eviction()) || !now.uid().equals(was.uid())) {
                  throw conflict(
                      next,
                      "spec.admitted."
                          + name
                          + ".eviction: an eviction is never taken back or changed; the entry"
                          + " is released once its tasks have stopped");
                }
                return;
              }
              var w = read(reads, Kinds.WORKLOAD, name, compares);
              if (w.isPresent()
                  && w.get().metadata().uid().equals(was.uid())
                  && !w.get().metadata().isDeleting()) {
                shrink(reads, next, name, was, was.resized(Map.of(), Map.of()), compares);
              }
            });
  }

  /**
   * Q2 in the store: a newly evicted entry names a preemptor nominated in the same write for it,
   * and is rightful ({@code Preemption}'s rules): of the preemptor's queue and lower priority, or
   * of a queue that borrows; and it did not evict that preemptor itself (the anti-cycle rule).
   */
  private void evictions(QuotaLedgerSpec before, QuotaLedger next, Map<String, QueueSpec> specs) {
    var quota = CohortQuota.of(specs, before.admitted());
    next.spec()
        .newlyEvicted(before)
        .forEach(
            (name, a) -> {
              var was = before.admitted().get(name);
              var field = "spec.admitted." + name + ".eviction";
              var e = a.eviction().get();
              if (was == null) {
                throw conflict(next, field + ": only an admitted workload is evicted");
              }
              if (e.reason() == EvictionReason.OverQuota) {
                overQuota(next, field, a, quota, specs);
                return;
              }
              if (!e.reason().hasPreemptor()) {
                if (was.started() || !e.by().isEmpty() || !e.byUid().isEmpty()) {
                  throw conflict(
                      next,
                      field
                          + ": "
                          + e.reason()
                          + " evicts only an admission that has not started, and names no"
                          + " preemptor");
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
              if (a.preempted().contains(e.byUid())) {
                throw conflict(
                    next,
                    field
                        + ": "
                        + name
                        + " evicted "
                        + e.by()
                        + " to be admitted; a preempted workload never evicts its preemptor back");
              }
              boolean rightful =
                  switch (e.reason()) {
                    case Preempted -> a.queue().equals(n.queue()) && a.priority() < n.priority();
                    case Reclaimed ->
                        !a.queue().equals(n.queue())
                            && a.usage().keySet().stream()
                                .anyMatch(c -> quota.borrowed(a.queue(), c) > 0);
                    case StartTimeout, OverQuota -> true; // judged above
                  };
              if (!rightful) {
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

  /**
   * A scale-down's admission shrinks only once the surplus tasks are gone or finished: their names
   * are fixed ({@code <workload>-<group>-<ordinal>}), so each one freed is read, and its read joins
   * the transaction (one created meanwhile fails it).
   */
  private void shrink(
      Reads reads,
      QuotaLedger next,
      String workload,
      Admitted was,
      Admitted now,
      List<Compare> compares) {
    for (var g : was.replicas().entrySet()) {
      int kept = now.replicas().getOrDefault(g.getKey(), 0);
      for (int ordinal = kept; ordinal < g.getValue(); ordinal++) {
        var name = WorkerNames.task(workload, g.getKey(), ordinal);
        var task = read(reads, Kinds.TASK, name, compares);
        if (task.isPresent()
            && !task.get().status().phase().isFinished()
            && task.get().metadata().owner().map(o -> o.uid().equals(now.uid())).orElse(false)) {
          throw conflict(
              next,
              "spec.admitted."
                  + workload
                  + ".replicas."
                  + g.getKey()
                  + ": task "
                  + name
                  + " still runs; a workload's admission shrinks as its surplus tasks go");
        }
      }
    }
  }

  private List<Compare> queueChange(Reads reads, Queue current, Optional<Queue> next) {
    var cohort = current.cohort();
    var compares = new ArrayList<Compare>();
    var ledger = read(reads, Kinds.QUOTA_LEDGER, cohort, compares);
    if (ledger.isEmpty()) {
      return compares;
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
      return compares;
    }
    var few = new ArrayList<Compare>();
    if (borrowsNothing(reads, ledger.get(), name, next, few)) {
      compares.addAll(few);
      return compares;
    }
    var specs = new HashMap<String, QueueSpec>();
    for (var q : ledger.get().spec().queues()) {
      if (q.equals(name)) {
        continue;
      }
      read(reads, Kinds.QUEUE, q, compares)
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
    return compares;
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
  private boolean borrowsNothing(
      Reads reads, QuotaLedger ledger, String name, Optional<Queue> next, List<Compare> compares) {
    var admitted = ledger.spec().admitted();
    var used = new java.util.TreeSet<String>();
    admitted.values().forEach(a -> used.add(a.queue()));
    var specs = new HashMap<String, QueueSpec>();
    for (var q : used) {
      if (!ledger.spec().queues().contains(q)) {
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
          read(reads, Kinds.QUEUE, q, compares)
              .filter(x -> x.cohort().equals(ledger.metadata().name()));
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

  /**
   * An admitted workload keeps its queue: moved, it would leave its admission behind while its
   * tasks run, using devices no quota counts.
   */
  private List<Compare> queueMove(Reads reads, Workload current) {
    var compares = new ArrayList<Compare>();
    var queue = read(reads, Kinds.QUEUE, current.spec().queueName(), compares);
    if (queue.isEmpty()) {
      return compares;
    }
    var ledger = read(reads, Kinds.QUOTA_LEDGER, queue.get().cohort(), compares);
    var entry = ledger.map(l -> l.spec().admitted().get(current.metadata().name()));
    if (entry.isPresent() && entry.get().uid().equals(current.metadata().uid())) {
      throw conflict(
          current,
          "spec.queue cannot change while the workload is admitted through queue "
              + current.spec().queueName()
              + "; delete it and create it in the other queue");
    }
    return compares;
  }

  private <T extends ApiObject> Optional<T> read(
      Reads reads, dev.quartermaster.api.meta.Kind<T> kind, String name, List<Compare> compares) {
    return terms.read(reads, kind, name, compares);
  }

  private static ApiException conflict(ApiObject object, String message) {
    return new ApiException(Reason.Conflict, object.ref() + ": " + message);
  }
}
