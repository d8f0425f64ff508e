package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.WorkerNames;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * ADMIT in the store, whoever writes: what a ledger says of a workload is of that live workload,
 * and a workload's workers exist only within what its queue admitted. It refuses, with a 409 naming
 * the rule (a 422 for an entry's terms, {@link AdmissionTerms}):
 *
 * <ul>
 *   <li>an entry new or changed of a workload that is gone, re-created, being deleted or of another
 *       queue, or whose usage or priority is not what its workload gives; a nomination likewise;
 *   <li>a scale-down's shrink while a surplus worker still runs, and the release of a live
 *       workload's entry (evicted, or its job over) while one of its workers runs ({@link
 *       SurplusTasks});
 *   <li>the workload controller's create of a worker beyond what its queue admitted (its cache of
 *       the ledger may lag a shrink), or of an evicted workload's;
 *   <li>moving an admitted workload to another queue.
 * </ul>
 */
final class AdmittedWorkloadGuard implements WriteRules {
  private final StoredObjects stored;

  AdmittedWorkloadGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    var seen = new ComparedReads(reads, stored);
    switch (next) {
      case QuotaLedger l -> ledgerWrite(seen, QuotaLedgerSpec.EMPTY, l);
      case Task t when t.metadata().labels().containsKey(SpecDecision.CREATED_AT) ->
          workerCreate(seen, t);
      default -> {}
    }
    return seen.compares();
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    var seen = new ComparedReads(reads, stored);
    switch (next) {
      case QuotaLedger l -> ledgerWrite(seen, ((QuotaLedger) current).spec(), l);
      case Workload w when !((Workload) current).spec().queueName().equals(w.spec().queueName()) ->
          queueMove(seen, (Workload) current);
      default -> {}
    }
    return seen.compares();
  }

  /**
   * Each entry and nomination new or changed in this write is of its live workload, as it is; an
   * entry of the same workload shrunk only as its surplus tasks have gone.
   */
  private static void ledgerWrite(ComparedReads reads, QuotaLedgerSpec before, QuotaLedger next) {
    next.spec()
        .nominated()
        .forEach(
            (name, n) -> {
              var was = Optional.ofNullable(before.nominated().get(name));
              if (!was.equals(Optional.of(n))) {
                AdmissionTerms.nomination(reads, next, name, was, n);
              }
            });
    next.spec()
        .admitted()
        .forEach(
            (name, a) -> {
              var was =
                  Optional.ofNullable(before.admitted().get(name))
                      .filter(b -> b.uid().equals(a.uid()));
              if (!was.equals(Optional.of(a))) {
                var w = live(reads, next, name, a);
                AdmissionTerms.entry(reads, next, name, was, a, w);
              }
            });
    next.spec()
        .admitted()
        .forEach(
            (name, a) -> {
              var was = before.admitted().get(name);
              if (was != null && was.uid().equals(a.uid()) && !was.equals(a)) {
                SurplusTasks.refuseWhileRunning(reads, next, name, was, a);
              }
            });
    // A live workload's entry goes only once its workers have stopped, whatever the release is
    // for: an eviction done, its job over — judged here, since a decision from caches that lag
    // may be wrong (seed 1837: a workload seen scaled to 0 and without tasks, "finished", while it
    // had been scaled up again and its worker was pending).
    before
        .admitted()
        .forEach(
            (name, was) -> {
              var now = next.spec().admitted().get(name);
              if (now == null || !now.uid().equals(was.uid())) {
                var w = reads.get(Kinds.WORKLOAD, name);
                if (w.isPresent()
                    && w.get().metadata().uid().equals(was.uid())
                    && !w.get().metadata().isDeleting()) {
                  SurplusTasks.refuseWhileRunning(
                      reads, next, name, was, was.resized(Map.of(), Map.of()));
                }
              }
            });
  }

  /** Workload {@code name}, refused unless it is live and of {@code a}'s uid and queue. */
  private static Workload live(ComparedReads reads, QuotaLedger next, String name, Admitted a) {
    var w = reads.get(Kinds.WORKLOAD, name);
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
              + name
              + ": workload "
              + name
              + " "
              + why.get()
              + "; only a live workload is admitted, through its own queue");
    }
    return w.get();
  }

  /**
   * A workload's worker is created only within what its queue admitted: the controller's cache of
   * the ledger may lag a shrink, so the store judges it. A workload whose queue does not exist (the
   * workload controller run without queues) is not judged.
   */
  private static void workerCreate(ComparedReads reads, Task t) {
    var owner = t.metadata().owner().filter(o -> o.kind().equals(Kinds.WORKLOAD.name()));
    if (owner.isEmpty()) {
      return;
    }
    var w = reads.get(Kinds.WORKLOAD, owner.get().name());
    if (w.isEmpty() || !w.get().metadata().uid().equals(owner.get().uid())) {
      return;
    }
    var queue = reads.get(Kinds.QUEUE, w.get().spec().queueName());
    if (queue.isEmpty()) {
      return;
    }
    var ledger = reads.get(Kinds.QUOTA_LEDGER, queue.get().cohort());
    var entry =
        ledger
            .map(l -> l.spec().admitted().get(owner.get().name()))
            .filter(a -> a.uid().equals(owner.get().uid()));
    if (entry.map(Admitted::evicting).orElse(false)) {
      var e = entry.get().eviction().get();
      throw conflict(
          t,
          "workload "
              + owner.get().name()
              + " is being evicted ("
              + e.reason()
              + (e.by().isEmpty() ? "" : " by " + e.by())
              + "); its workers are created again once its queue admits it again");
    }
    var name = t.metadata().name();
    var slot =
        w.get().spec().groups().stream()
            .filter(g -> WorkerNames.ordinal(owner.get().name(), g.name(), name).isPresent())
            .findFirst();
    if (slot.isEmpty()) {
      return; // not one of the workload's worker names: no slot of its admission
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
  }

  /**
   * An admitted workload keeps its queue: moved, it would leave its admission behind while its
   * tasks run, using devices no quota counts.
   */
  private static void queueMove(ComparedReads reads, Workload current) {
    var queue = reads.get(Kinds.QUEUE, current.spec().queueName());
    if (queue.isEmpty()) {
      return;
    }
    var ledger = reads.get(Kinds.QUOTA_LEDGER, queue.get().cohort());
    var entry = ledger.map(l -> l.spec().admitted().get(current.metadata().name()));
    if (entry.isPresent() && entry.get().uid().equals(current.metadata().uid())) {
      throw conflict(
          current,
          "spec.queue cannot change while the workload is admitted through queue "
              + current.spec().queueName()
              + "; delete it and create it in the other queue");
    }
  }

  private static ApiException conflict(ApiObject object, String message) {
    return new ApiException(Reason.Conflict, object.ref() + ": " + message);
  }
}
