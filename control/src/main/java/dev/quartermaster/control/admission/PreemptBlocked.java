package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.AdmissionTransitions;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.policy.VictimChoice;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A decision's fourth step: per queue, the first blocked workload that can make room by evicting
 * ({@link Preemption}) does. Its victims' entries are marked, not released: they keep counting
 * until their tasks are gone (the quota always covers what runs), and it is nominated, so that it
 * is taken first once their quota comes back. While its victims are still stopping it chooses no
 * more, and neither does its queue (one preemption at a time).
 *
 * @param evicted the victims chosen, each with its preemptor's name in its entry
 * @param visits how many times the step looked at one queue's figures
 */
record PreemptBlocked(List<Preemption.Victim> evicted, long visits) {

  /**
   * The preemptions of {@code blocked} (queue → its workloads that did not fit, in order), the
   * queues taken in {@code order} of their first; written into {@code next}.
   */
  static PreemptBlocked run(
      CohortSnapshot s,
      NextLedger next,
      Map<String, List<Workload>> blocked,
      HeldForPreemptors held,
      Comparator<Workload> order,
      VictimChoice victims) {
    var evicted = new ArrayList<Preemption.Victim>();
    var fresh = new HashSet<>(next.admitted);
    // Whether a queue borrows is judged on what the store holds, as the store's guard judges it.
    var stored = next.quota.copy();
    for (var f : next.admitted) {
      var a = next.kept.get(f);
      stored.remove(a.queue(), a.usage());
    }
    // Queue → the names admitted through it: a preemptor looks only where a victim can be.
    var byQueue = new HashMap<String, List<String>>();
    next.kept.forEach((n, a) -> byQueue.computeIfAbsent(a.queue(), q -> new ArrayList<>()).add(n));
    // Admissions since then evicted no one: the preemptors with victims stopping are the same.
    var inFlight = new HashSet<>(held.stoppingFor().keySet());
    var queuesInTurn =
        blocked.values().stream().sorted(Comparator.comparing(List::getFirst, order)).toList();
    for (var tries : queuesInTurn) {
      for (var w : tries) {
        var name = w.metadata().name();
        var uid = w.metadata().uid();
        if (inFlight.contains(uid)) {
          break; // its queue waits for its victims to stop: one preemption at a time
        }
        if (next.kept.containsKey(name)) {
          continue; // admitted, waiting to grow: it preempts nobody for that
        }
        var p =
            new Preemption.Preemptor(
                name, uid, w.spec().queueName(), s.priority(w), s.demand(w.spec()));
        var chosen =
            Preemption.choose(p, next.kept, byQueue, fresh, held.withHeld(), stored, victims);
        if (chosen.isEmpty() || chosen.get().isEmpty()) {
          continue;
        }
        var uids = new ArrayList<String>();
        for (var v : chosen.get()) {
          var e = new Eviction(name, uid, v.reason(), s.now());
          next.kept.put(v.name(), AdmissionTransitions.preempted(v.entry(), e));
          evicted.add(new Preemption.Victim(v.name(), next.kept.get(v.name()), v.reason()));
          uids.add(v.entry().uid());
        }
        var chose = new Nomination(uid, p.queue(), p.priority(), uids, s.now());
        next.nominated.put(
            name,
            AdmissionTransitions.nominated(Optional.ofNullable(next.nominated.get(name)), chose));
        inFlight.add(uid);
        break;
      }
    }
    return new PreemptBlocked(List.copyOf(evicted), stored.visits());
  }
}
