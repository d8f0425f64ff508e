package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.QueueStatus;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.policy.AdmissionPolicy;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One admission decision for a cohort, pure: from one {@link CohortSnapshot}, the next ledger —
 * every pending workload that fits admitted at once, of every queue (not one per queue per cycle),
 * and entries of workloads that are gone released. Its steps, in order, each a type of its own:
 *
 * <ol>
 *   <li>{@link CarryOver}: the ledger read, carried over (released, shrunk, grown);
 *   <li>{@link AdmitNominated}: the workloads that preempted, once their victims' quota is back;
 *   <li>{@link AdmitByShare}: every other pending workload that fits, queues in turn by the
 *       policy's {@code AdmissionOrder}, with what waiting preemptors need held ({@link
 *       HeldForPreemptors});
 *   <li>{@link PreemptBlocked}: the first blocked workloads make room, victims by the policy's
 *       {@code VictimChoice} among the rightful ({@link Preemption});
 *   <li>{@link QueueStatuses}: each queue's status.
 * </ol>
 */
final class AdmissionCycle {
  private AdmissionCycle() {}

  /**
   * @param ledger the cohort's next ledger
   * @param changed whether it differs from the one read
   * @param statuses queue → its status
   * @param admitted the workloads admitted (or re-admitted larger) by this decision
   * @param released the workloads whose entries this decision removed
   * @param evicted the victims this decision chose, each with its preemptor's name in its entry
   * @param visits how many times the decision looked at one queue's figures: it grows linearly with
   *     the cohort's queues and workloads (tests hold it to that)
   */
  record Plan(
      QuotaLedgerSpec ledger,
      boolean changed,
      Map<String, QueueStatus> statuses,
      List<String> admitted,
      List<String> released,
      List<Preemption.Victim> evicted,
      long visits) {}

  static Plan decide(CohortSnapshot s, AdmissionPolicy policy) {
    var carried = CarryOver.of(s);
    var order = policy.order().within(s.priorities());
    var pending = pending(s, carried, order);
    var next = new NextLedger(s, carried);
    AdmitNominated.run(s, next, pending, order);
    var held = HeldForPreemptors.of(s, next);
    var blocked = new AdmitByShare(s, next, pending, held.withHeld(), policy.order()).run();
    var preempted = PreemptBlocked.run(s, next, blocked, held, order, policy.victims());
    var ledger = new QuotaLedgerSpec(List.copyOf(s.specs().keySet()), next.kept, next.nominated);
    var statuses = QueueStatuses.of(s, next);
    return new Plan(
        ledger,
        !ledger.equals(s.ledger()),
        statuses,
        next.admitted,
        carried.released(),
        preempted.evicted(),
        next.quota.visits() + held.withHeld().visits() + preempted.visits());
  }

  /**
   * Queue → its workloads waiting to be admitted, in {@code order}: not admitted (or grown), not
   * finished, not just released from an eviction, not backing off, and of a priority class that
   * exists.
   */
  private static Map<String, ArrayDeque<Workload>> pending(
      CohortSnapshot s, CarryOver carried, Comparator<Workload> order) {
    var pending = new HashMap<String, ArrayDeque<Workload>>();
    s.workloads().stream()
        .filter(w -> !w.metadata().isDeleting() && s.specs().containsKey(w.spec().queueName()))
        .filter(w -> !s.finished(w.metadata().name()))
        .filter(
            w ->
                !carried.kept().containsKey(w.metadata().name())
                    || carried.grown().contains(w.metadata().name()))
        .filter(w -> !carried.back().contains(w.metadata().name()))
        .filter(w -> !s.facts().backingOff().contains(w.metadata().name()))
        .filter(w -> w.spec().priority().map(s.priorities()::containsKey).orElse(true))
        .sorted(order)
        .forEach(
            w -> pending.computeIfAbsent(w.spec().queueName(), q -> new ArrayDeque<>()).add(w));
    return pending;
  }
}
