package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Counts;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QueueStatus;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One admission decision for a cohort, pure: from its queues, its ledger and the workloads that
 * name its queues, the next ledger — every pending workload that fits admitted at once, of every
 * queue (not one per queue per cycle), and entries of workloads that are gone released.
 *
 * <p>Order: each queue's pending workloads by {@link QueueOrder}; across queues, the next workload
 * is taken from the queue with the lowest weighted dominant share (its largest used/cohort-quota
 * over its weight), so borrowing goes to the queues that use least for their weight. A workload
 * that does not fit stops its queue ({@code StrictFIFO}) or is passed over ({@code BestEffortFIFO}:
 * smaller ones behind it may go). A workload scaled up is admitted again whole with its new size,
 * or keeps its old admission until that fits; a scale-down is released at once.
 *
 * <p>Preemption: the first workload of each queue that does not fit may choose victims ({@link
 * Preemption}). Their entries are marked, not released: they keep counting until their tasks are
 * gone (the quota always covers what runs), and the preemptor is nominated. A nominated workload is
 * taken before any other once its victims' quota comes back, so nobody else takes it, and its entry
 * remembers them (the anti-cycle rule). While its victims are still stopping it chooses no more.
 */
final class AdmissionCycle {
  /**
   * How many of a queue's workloads that do not fit may try to preempt in one decision, in order
   * (the first that can does; a StrictFIFO queue tries its head only).
   */
  static final int PREEMPTION_TRIES = 8;

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

  /**
   * @param existing workload → group → how many ordinals its live tasks take (the highest live
   *     ordinal + 1), for the workloads scaled down below their admission: the admission shrinks
   *     only as their surplus tasks go, so the quota always covers what runs
   * @param finished the workloads whose jobs are over (every task ended for good): their quota is
   *     released, and they are not admitted again unless scaled up
   * @param stopped the evicted workloads none of whose tasks is left: their entries are released
   * @param channelsPerTask compute domain → the IMEX channels it gives each task ({@link Demand})
   */
  static Plan decide(
      List<Queue> queues,
      QuotaLedgerSpec ledger,
      List<Workload> workloads,
      Map<String, Integer> priorities,
      Map<String, Map<String, Integer>> existing,
      Set<String> finished,
      Set<String> stopped,
      java.util.function.ToIntFunction<String> channelsPerTask,
      Instant now) {
    return decide(
        queues,
        ledger,
        workloads,
        priorities,
        existing,
        finished,
        stopped,
        Set.of(),
        channelsPerTask,
        now);
  }

  /**
   * As above; {@code backingOff}: workloads that wait out a backoff after an eviction ({@link
   * Requeues}): pending, but not taken (nor preempting) until it is over.
   */
  static Plan decide(
      List<Queue> queues,
      QuotaLedgerSpec ledger,
      List<Workload> workloads,
      Map<String, Integer> priorities,
      Map<String, Map<String, Integer>> existing,
      Set<String> finished,
      Set<String> stopped,
      Set<String> backingOff,
      java.util.function.ToIntFunction<String> channelsPerTask,
      Instant now) {
    java.util.function.Function<WorkloadSpec, Map<String, Integer>> demandOf =
        spec -> Demand.of(spec, channelsPerTask);
    var specs = new TreeMap<String, QueueSpec>();
    queues.forEach(q -> specs.put(q.metadata().name(), q.spec()));
    var byName = new HashMap<String, Workload>();
    workloads.forEach(w -> byName.put(w.metadata().name(), w));

    var kept = new TreeMap<String, Admitted>();
    var released = new ArrayList<String>();
    var grown = new java.util.HashSet<String>();
    // Evicted workloads whose tasks have stopped: released now, and pending again from the next
    // decision on (so the store sees the release, judged on its own, before any new admission).
    var back = new java.util.HashSet<String>();
    ledger
        .admitted()
        .forEach(
            (name, a) -> {
              var w = byName.get(name);
              if (w == null
                  || finished.contains(name)
                  || !w.metadata().uid().equals(a.uid())
                  || w.metadata().isDeleting()
                  || !w.spec().queueName().equals(a.queue())
                  || !specs.containsKey(a.queue())) {
                released.add(name);
                return;
              }
              if (a.evicting()) {
                if (stopped.contains(name)) {
                  released.add(name);
                  back.add(name);
                } else {
                  kept.put(name, a);
                }
                return;
              }
              var replicas = replicasOf(w.spec());
              var demand = demandOf.apply(w.spec());
              if (replicas.equals(a.replicas()) && demand.equals(a.usage())) {
                kept.put(name, a);
              } else if (within(replicas, a.replicas()) && within(demand, a.usage())) {
                kept.put(name, shrunk(w, a, existing.getOrDefault(name, Map.of()), demandOf));
              } else {
                kept.put(name, a);
                grown.add(name);
              }
            });

    var nominated = new TreeMap<String, Nomination>();
    ledger
        .nominated()
        .forEach(
            (name, n) -> {
              var w = byName.get(name);
              if (w != null
                  && w.metadata().uid().equals(n.uid())
                  && !w.metadata().isDeleting()
                  && w.spec().queueName().equals(n.queue())
                  && specs.containsKey(n.queue())
                  && !kept.containsKey(name)
                  && !finished.contains(name)) {
                nominated.put(name, n);
              }
            });

    var pending = new HashMap<String, ArrayDeque<Workload>>();
    var order = QueueOrder.of(priorities);
    workloads.stream()
        .filter(w -> !w.metadata().isDeleting() && specs.containsKey(w.spec().queueName()))
        .filter(w -> !finished.contains(w.metadata().name()))
        .filter(w -> !kept.containsKey(w.metadata().name()) || grown.contains(w.metadata().name()))
        .filter(w -> !back.contains(w.metadata().name()))
        .filter(w -> !backingOff.contains(w.metadata().name()))
        .filter(w -> w.spec().priority().map(priorities::containsKey).orElse(true))
        .sorted(order)
        .forEach(
            w -> pending.computeIfAbsent(w.spec().queueName(), q -> new ArrayDeque<>()).add(w));

    // The cohort's figures as the decision goes, and the same with what waiting preemptors hold:
    // each workload tried costs its classes, never a pass over the queues.
    var quota = QuotaTally.of(specs, kept);
    // In long: two queues of quota Integer.MAX_VALUE overflow an int.
    var totals = new HashMap<String, Long>();
    specs
        .values()
        .forEach(q -> q.quota().forEach((c, n) -> totals.merge(c, (long) n, Counts::sum)));
    var admittedNow = new ArrayList<String>();
    // Those that preempted go first: what their victims gave back is theirs.
    var first =
        pending.values().stream()
            .flatMap(ArrayDeque::stream)
            .filter(w -> nominated.containsKey(w.metadata().name()))
            .sorted(order)
            .toList();
    for (var w : first) {
      var name = w.metadata().name();
      if (quota.fits(w.spec().queueName(), demandOf.apply(w.spec()))) {
        var n = nominated.remove(name);
        kept.put(
            name,
            admit(
                w,
                w.spec().queueName(),
                QueueOrder.priorityOf(w, priorities),
                now,
                n.victims(),
                demandOf.apply(w.spec())));
        quota.add(w.spec().queueName(), demandOf.apply(w.spec()));
        admittedNow.add(name);
        pending.get(w.spec().queueName()).remove(w);
      }
    }
    pending.values().removeIf(ArrayDeque::isEmpty);
    // What a preemptor waits for is held for it: its demand, less what its victims still stopping
    // use (they count already). Without this, a victim released first goes to whoever is next
    // (itself, even), and the preemptor chooses again, and again.
    // Preemptor uid → what its victims still stopping use, in one pass over the entries.
    var stoppingFor = new HashMap<String, Map<String, Long>>();
    for (var a : kept.values()) {
      a.eviction()
          .ifPresent(
              e -> {
                var stopping = stoppingFor.computeIfAbsent(e.byUid(), u -> new HashMap<>());
                a.usage().forEach((c, k) -> stopping.merge(c, (long) k, Counts::sum));
              });
    }
    var held = new ArrayList<Map.Entry<String, Map<String, Integer>>>();
    nominated.forEach(
        (name, n) -> {
          var w = byName.get(name);
          var stopping = stoppingFor.get(n.uid());
          if (w == null || stopping == null) {
            return; // nothing to wait for: it is taken first when it fits, and holds nothing
          }
          var reserve = new TreeMap<String, Integer>();
          demandOf
              .apply(w.spec())
              .forEach(
                  (c, k) -> {
                    long left = k - stopping.getOrDefault(c, 0L);
                    if (left > 0) {
                      reserve.put(c, (int) left); // at most k, an int
                    }
                  });
          held.add(Map.entry(n.queue(), reserve));
        });
    var withHeld = quota.copy();
    held.forEach(h -> withHeld.add(h.getKey(), h.getValue()));
    // Per queue, the first workloads that did not fit, in order (a StrictFIFO queue's head only):
    // each may preempt, the first that can.
    var blocked = new TreeMap<String, List<Workload>>();
    // Per BestEffortFIFO queue whose first workload did not fit: that head's start, which those
    // behind it may not delay (QueueBackfill).
    var heads = new HashMap<String, QueueBackfill.Start>();
    // The queues with pending workloads, fairest first: only the queue that admitted moves.
    var shares = new HashMap<String, Double>();
    var turn =
        new java.util.TreeSet<String>(
            java.util.Comparator.<String>comparingDouble(shares::get)
                .thenComparing(java.util.Comparator.naturalOrder()));
    for (var q : pending.keySet()) {
      shares.put(q, dominantShare(q, totals, quota) / specs.get(q).weight());
      turn.add(q);
    }
    quota.visited(pending.size());
    while (!turn.isEmpty()) {
      var queue = turn.pollFirst();
      quota.visited(1);
      var head = pending.get(queue).poll();
      var name = head.metadata().name();
      var before = kept.get(name);
      var demand = demandOf.apply(head.spec());
      // A workload admitted before and grown is judged without its old admission.
      if (before != null) {
        quota.remove(before.queue(), before.usage());
        withHeld.remove(before.queue(), before.usage());
      }
      boolean passes =
          !heads.containsKey(queue) || QueueBackfill.mayPass(heads.get(queue), head.spec(), now);
      // One that would delay the head of its queue (passes false) waits, and preempts nobody.
      if (passes && withHeld.fits(queue, demand)) {
        // A grown workload keeps whom it evicted: forgetting would let them evict it back.
        var preempted = before == null ? List.<String>of() : before.preempted();
        kept.put(
            name,
            admit(head, queue, QueueOrder.priorityOf(head, priorities), now, preempted, demand));
        quota.add(queue, demand);
        withHeld.add(queue, demand);
        admittedNow.add(name);
      } else {
        if (before != null) {
          quota.add(before.queue(), before.usage());
          withHeld.add(before.queue(), before.usage());
        }
        if (passes) {
          var tries = blocked.computeIfAbsent(queue, q -> new ArrayList<>());
          if (tries.size() < PREEMPTION_TRIES) {
            tries.add(head);
          }
          if (specs.get(queue).ordering() == QueueOrdering.StrictFIFO) {
            pending.get(queue).clear();
          } else if (!heads.containsKey(queue) && !pending.get(queue).isEmpty()) {
            var q = queue;
            heads.put(
                queue,
                QueueBackfill.start(
                    withHeld, kept, byName, name, less -> less.fits(q, demand), now));
          }
        }
      }
      if (pending.get(queue).isEmpty()) {
        pending.remove(queue);
      } else {
        shares.put(queue, dominantShare(queue, totals, quota) / specs.get(queue).weight());
        turn.add(queue);
      }
    }

    var evicted = new ArrayList<Preemption.Victim>();
    var fresh = new java.util.HashSet<>(admittedNow);
    var storedQuota = quota.copy();
    for (var f : admittedNow) {
      var a = kept.get(f);
      storedQuota.remove(a.queue(), a.usage());
    }
    // Queue → the names admitted through it: a preemptor looks only where a victim can be.
    var byQueue = new HashMap<String, List<String>>();
    kept.forEach((n, a) -> byQueue.computeIfAbsent(a.queue(), q -> new ArrayList<>()).add(n));
    // Admissions since then evicted no one: the preemptors with victims stopping are the same.
    var inFlight = new java.util.HashSet<>(stoppingFor.keySet());
    var queuesInTurn =
        blocked.values().stream()
            .sorted(java.util.Comparator.comparing(List::getFirst, order))
            .toList();
    for (var tries : queuesInTurn) {
      for (var w : tries) {
        var name = w.metadata().name();
        var uid = w.metadata().uid();
        if (inFlight.contains(uid)) {
          break; // its queue waits for its victims to stop: one preemption at a time
        }
        if (kept.containsKey(name)) {
          continue; // admitted, waiting to grow: it preempts nobody for that
        }
        var p =
            new Preemption.Preemptor(
                name,
                uid,
                w.spec().queueName(),
                QueueOrder.priorityOf(w, priorities),
                demandOf.apply(w.spec()));
        var victims = Preemption.choose(p, kept, byQueue, fresh, withHeld, storedQuota);
        if (victims.isEmpty() || victims.get().isEmpty()) {
          continue;
        }
        var uids = new ArrayList<String>();
        Optional.ofNullable(nominated.get(name)).ifPresent(n -> uids.addAll(n.victims()));
        for (var v : victims.get()) {
          var e = new Eviction(name, uid, v.reason(), now);
          kept.put(v.name(), v.entry().evictedBy(e));
          evicted.add(new Preemption.Victim(v.name(), kept.get(v.name()), v.reason()));
          uids.add(v.entry().uid());
        }
        nominated.put(name, new Nomination(uid, p.queue(), p.priority(), uids, now));
        inFlight.add(uid);
        break;
      }
    }

    var next = new QuotaLedgerSpec(List.copyOf(specs.keySet()), kept, nominated);
    var waiting = new HashMap<String, Integer>();
    for (var w : workloads) {
      if (!w.metadata().isDeleting()
          && !finished.contains(w.metadata().name())
          && !kept.containsKey(w.metadata().name())) {
        waiting.merge(w.spec().queueName(), 1, Integer::sum);
      }
    }
    // Each queue's status from one pass over the entries and one over the queues: what is lent is
    // laid on the lenders once per class, not once per queue.
    var entries = new HashMap<String, List<Admitted>>();
    kept.values().forEach(a -> entries.computeIfAbsent(a.queue(), q -> new ArrayList<>()).add(a));
    var lent = new HashMap<String, Map<String, Integer>>();
    var statuses = new TreeMap<String, QueueStatus>();
    for (var q : specs.keySet()) {
      quota.visited(1);
      var here = entries.getOrDefault(q, List.of());
      var classes = new java.util.TreeSet<String>(specs.get(q).quota().keySet());
      here.forEach(a -> classes.addAll(a.usage().keySet()));
      statuses.put(
          q,
          new QueueStatus(
              waiting.getOrDefault(q, 0),
              here.size(),
              perClass(classes, c -> quota.used(q, c)),
              perClass(classes, c -> quota.borrowed(q, c)),
              perClass(classes, c -> lent.computeIfAbsent(c, quota::lent).getOrDefault(q, 0))));
    }
    return new Plan(
        next,
        !next.equals(ledger),
        statuses,
        admittedNow,
        released,
        evicted,
        quota.visits() + withHeld.visits() + storedQuota.visits());
  }

  /**
   * The largest, over the classes the cohort has quota of ({@code totals}: class → the cohort's
   * nominal quota), of this queue's used / cohort quota.
   */
  private static double dominantShare(String queue, Map<String, Long> totals, QuotaTally quota) {
    double share = 0;
    for (var e : totals.entrySet()) {
      if (e.getValue() > 0) {
        share = Math.max(share, quota.used(queue, e.getKey()) / (double) e.getValue());
      }
    }
    return share;
  }

  /**
   * {@code a} after a scale-down of {@code w}: each group keeps what its live tasks still take, at
   * most what was admitted.
   */
  private static Admitted shrunk(
      Workload w,
      Admitted a,
      Map<String, Integer> taken,
      java.util.function.Function<WorkloadSpec, Map<String, Integer>> demandOf) {
    var groups =
        w.spec().groups().stream()
            .map(
                g ->
                    g.withReplicas(
                        Math.min(
                            a.replicas().getOrDefault(g.name(), 0),
                            Math.max(g.replicas(), taken.getOrDefault(g.name(), 0)))))
            .toList();
    var held = w.spec().withGroups(groups);
    return a.resized(replicasOf(held), demandOf.apply(held));
  }

  /** Whether {@code w} is admitted for more replicas than its spec asks of some group. */
  static boolean shrinking(Workload w, Admitted a) {
    return w.spec().groups().stream()
        .anyMatch(g -> a.replicas().getOrDefault(g.name(), 0) > g.replicas());
  }

  private static Admitted admit(
      Workload w,
      String queue,
      int priority,
      Instant at,
      List<String> preempted,
      Map<String, Integer> usage) {
    return new Admitted(
        w.metadata().uid(),
        queue,
        replicasOf(w.spec()),
        usage,
        priority,
        at,
        Optional.empty(),
        preempted);
  }

  private static Map<String, Integer> replicasOf(WorkloadSpec spec) {
    return spec.groups().stream()
        .collect(
            Collectors.toMap(WorkerGroup::name, WorkerGroup::replicas, (a, b) -> a, TreeMap::new));
  }

  /** Whether every count of {@code next} is at most {@code was}'s (absent: 0). */
  private static boolean within(Map<String, Integer> next, Map<String, Integer> was) {
    return next.entrySet().stream().allMatch(e -> e.getValue() <= was.getOrDefault(e.getKey(), 0));
  }

  private static Map<String, Integer> perClass(
      java.util.Set<String> classes, java.util.function.ToIntFunction<String> f) {
    var out = new TreeMap<String, Integer>();
    for (var c : classes) {
      int n = f.applyAsInt(c);
      if (n != 0) {
        out.put(c, n);
      }
    }
    return out;
  }
}
