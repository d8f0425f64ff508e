package dev.quartermaster.sim.world;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.queue.RightfulEviction;
import dev.quartermaster.api.workload.JobEnd;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;

/**
 * What queues promise, checked on the store after every step:
 *
 * <ul>
 *   <li><b>Q1 quota</b>: in every cohort's ledger, what the admitted workloads use is within the
 *       queues' nominal quota plus what the cohort lends ({@link CohortQuota}), the queues' specs
 *       as the store holds them now, except what was admitted before a quota was lowered under it,
 *       which only goes down: no entry is admitted more of a class (a new one, a re-created
 *       workload's, a larger one) while the cohort is over its quota of that class;
 *   <li><b>ADMIT</b>: no live task of a live workload exists before that workload is admitted (its
 *       uid in its cohort's ledger): placement binds admitted workloads only;
 *   <li><b>Q2 rightful preemption</b>: an entry the store shows newly evicted names a preemptor
 *       nominated for it in the same ledger, and is rightful as the ledger stood before ({@link
 *       RightfulEviction#promised}: of the preemptor's queue and lower priority, or of a queue that
 *       borrowed a class it uses); it did not evict that preemptor itself (anti-cycle); and it is a
 *       whole workload: once its entry is released no task of it lives (ADMIT), and while it is
 *       evicted no task of it is created.
 *   <li><b>Q5 over quota, evicted</b>: a queue set to {@code overQuota: Evict} whose admitted (not
 *       evicting) workloads use more than it may hold ({@link QuotaTally#excess}: its quota lowered
 *       under what it admitted) is back within it within {@link #OVER_QUOTA_BOUND}, and an {@code
 *       OverQuota} eviction takes no more than needed: with the victims of one ledger write gone,
 *       giving any one of them back would leave some such queue over again (so the queue is not
 *       further below what it may hold than the smallest victim's usage).
 * </ul>
 *
 * And for convergence: a workload not admitted once faults stop must not fit its queue's room.
 */
final class QueuePromises {
  private final WholeCluster world;

  /** Each cohort's ledger as the last check saw it: Q2 judges what changed since. */
  private final java.util.Map<String, QuotaLedger> seen = new java.util.TreeMap<>();

  private long evictions;

  /**
   * Victim uid → the uid of who evicted it, for as long as that preemptor stays in its ledger: the
   * simulation's own memory of the anti-cycle rule (not the ledger's, which a naive admitter may
   * not keep).
   */
  private final java.util.Map<String, String> evictedBy = new java.util.TreeMap<>();

  /** {@code <workload uid>/<group>} → the fewest replicas its spec has asked since it was made. */
  private final java.util.Map<String, Integer> fewestWanted = new HashMap<>();

  private final StartPromises starts;

  /**
   * Q5's bound: the admission controller evicts in its next pass after it sees the quota change;
   * two minutes cover a leader's fail-over and a paused replica, as for Q3.
   */
  static final java.time.Duration OVER_QUOTA_BOUND = java.time.Duration.ofMinutes(2);

  /** An Evict queue over what it may hold: with which spec, since when (virtual nanos). */
  private record Over(QueueSpec spec, long since) {}

  private final java.util.Map<String, Over> over = new java.util.TreeMap<>();

  /**
   * The queues' specs at each of the last checks within {@link #SPECS_KEPT}: a victim is judged
   * needed if it was under any of them (the controller decides on its cache of the queues, which
   * may lag a quota change by a moment).
   */
  private final java.util.ArrayDeque<java.util.Map.Entry<Long, java.util.Map<String, QueueSpec>>>
      recentSpecs = new java.util.ArrayDeque<>();

  private static final long SPECS_KEPT = java.time.Duration.ofSeconds(10).toNanos();

  QueuePromises(WholeCluster world, StartPromises starts) {
    this.world = world;
    this.starts = starts;
  }

  /** How many evictions the checks have seen (each judged by Q2). */
  long evictions() {
    return evictions;
  }

  void check(List<String> out) {
    var view = world.view();
    var live = new HashMap<String, Workload>();
    view.workloads().forEach(w -> live.put(w.metadata().name(), w));
    for (var w : view.workloads()) {
      for (var g : w.spec().groups()) {
        fewestWanted.merge(w.metadata().uid() + "/" + g.name(), g.replicas(), Math::min);
      }
    }
    long now = world.env().nanoTime();
    var allSpecs = new HashMap<String, QueueSpec>();
    for (var ledger : view.ledgers()) {
      specs(ledger).ifPresent(allSpecs::putAll);
    }
    recentSpecs.addLast(java.util.Map.entry(now, allSpecs));
    while (recentSpecs.size() > 1 && now - recentSpecs.peekFirst().getKey() > SPECS_KEPT) {
      recentSpecs.removeFirst();
    }
    var previous = new java.util.TreeMap<>(seen);
    for (var ledger : view.ledgers()) {
      var before = seen.put(ledger.metadata().name(), ledger);
      if (before != null && !before.equals(ledger)) {
        rightful(before, ledger, out);
        wholeWorkloads(before, ledger, live, out);
        noMoreThanNeeded(before, ledger, out);
      }
    }
    for (var ledger : view.ledgers()) {
      var was =
          java.util.Optional.ofNullable(previous.get(ledger.metadata().name()))
              .map(QuotaLedger::spec)
              .orElse(dev.quartermaster.api.queue.QuotaLedgerSpec.EMPTY);
      specs(ledger).ifPresent(specs -> quota(ledger, was, specs, out));
      specs(ledger).ifPresent(specs -> overQuota(ledger, specs, now, out));
    }
    var workloads = new HashMap<String, Workload>();
    view.workloads().forEach(w -> workloads.put(w.metadata().name(), w));
    for (var t : view.tasks()) {
      if (t.metadata().isDeleting() || t.status().phase().isFinished()) {
        continue;
      }
      var owner = t.metadata().labels().get(Labels.WORKLOAD);
      var w = owner == null ? null : workloads.get(owner);
      if (w == null
          || w.metadata().isDeleting()
          || !t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false)) {
        continue;
      }
      var entry = admitted(w);
      var group = t.metadata().labels().get(Labels.GROUP);
      int ordinal =
          group == null ? 0 : TaskNames.ordinal(owner, group, t.metadata().name()).orElse(0);
      if (entry.isPresent()
          && group != null
          && ordinal >= entry.get().replicas().getOrDefault(group, 0)) {
        out.add(
            "ADMIT: task "
                + t.metadata().name()
                + " ("
                + t.status().phase()
                + ") beyond the "
                + entry.get().replicas().getOrDefault(group, 0)
                + " worker(s) of group "
                + group
                + " its queue admitted");
      }
      if (entry.isEmpty()) {
        out.add(
            "ADMIT: task "
                + t.metadata().name()
                + " ("
                + t.status().phase()
                + ") of workload "
                + owner
                + ", which its queue "
                + w.spec().queueName()
                + " has not admitted");
      }
    }
  }

  /**
   * Q1 in its second form: an entry admitted more of a class than the ledger last checked held
   * (new, re-created, or larger) leaves the cohort within its quota of that class. Only a lowered
   * quota may leave a cohort over it, and then what was admitted only goes down.
   */
  private static void quota(
      QuotaLedger ledger,
      dev.quartermaster.api.queue.QuotaLedgerSpec was,
      java.util.Map<String, QueueSpec> specs,
      List<String> out) {
    var quota = CohortQuota.of(specs, ledger.spec().admitted());
    ledger
        .spec()
        .admitted()
        .forEach(
            (name, a) -> {
              var before =
                  java.util.Optional.ofNullable(was.admitted().get(name))
                      .filter(b -> b.uid().equals(a.uid()))
                      .map(dev.quartermaster.api.queue.Admitted::usage)
                      .orElse(java.util.Map.of());
              a.usage()
                  .forEach(
                      (c, n) -> {
                        int from = before.getOrDefault(c, 0);
                        if (n > from) {
                          quota
                              .breach(List.of(c))
                              .ifPresent(
                                  b ->
                                      out.add(
                                          "Q1 cohort "
                                              + ledger.metadata().name()
                                              + ": "
                                              + b
                                              + ", and workload "
                                              + name
                                              + " was admitted "
                                              + (n - from)
                                              + " more "
                                              + c
                                              + " ("
                                              + from
                                              + " -> "
                                              + n
                                              + ")"));
                        }
                      });
            });
  }

  /** What {@code ledger}'s admitted, not evicting, workloads use: what Q5 judges. */
  private static QuotaTally holding(java.util.Map<String, QueueSpec> specs, QuotaLedger ledger) {
    var kept = new HashMap<String, Admitted>();
    ledger
        .spec()
        .admitted()
        .forEach(
            (n, a) -> {
              if (!a.evicting()) {
                kept.put(n, a);
              }
            });
    return QuotaTally.of(specs, kept);
  }

  /** The Evict queues of {@code specs} over what they may hold in {@code tally}, with how much. */
  private static java.util.Map<String, String> overIn(
      java.util.Map<String, QueueSpec> specs, QuotaTally tally) {
    var out = new java.util.TreeMap<String, String>();
    specs.forEach(
        (q, spec) -> {
          if (spec.overQuota() != OverQuota.Evict) {
            return;
          }
          for (var c : new java.util.TreeSet<>(spec.quota().keySet())) {
            int excess = tally.excess(q, c);
            if (excess > 0) {
              out.merge(
                  q,
                  c
                      + ": "
                      + tally.used(q, c)
                      + " used, quota "
                      + spec.quota().get(c)
                      + ", "
                      + excess
                      + " over",
                  (x, y) -> x + "; " + y);
            }
          }
        });
    return out;
  }

  /** Q5's bound: an Evict queue over what it may hold is back within it in time. */
  private void overQuota(
      QuotaLedger ledger, java.util.Map<String, QueueSpec> specs, long now, List<String> out) {
    var overNow = overIn(specs, holding(specs, ledger));
    for (var q : specs.keySet()) {
      var why = overNow.get(q);
      if (why == null) {
        over.remove(q);
        continue;
      }
      var o = over.get(q);
      if (o == null || !o.spec().equals(specs.get(q))) {
        over.put(q, new Over(specs.get(q), now));
        continue;
      }
      if (now - o.since() > OVER_QUOTA_BOUND.toNanos()) {
        out.add(
            "Q5: queue "
                + q
                + " is set to overQuota: Evict and has used more than it may hold for "
                + java.time.Duration.ofNanos(now - o.since()).toSeconds()
                + " s ("
                + why
                + "); nothing of it was evicted");
      }
    }
  }

  /**
   * Q5's half on each write: the {@code OverQuota} victims between {@code before} and {@code after}
   * were each needed, under the queues' specs of some recent check.
   */
  private void noMoreThanNeeded(QuotaLedger before, QuotaLedger after, List<String> out) {
    var victims = new java.util.TreeMap<String, Admitted>();
    after
        .spec()
        .newlyEvicted(before.spec())
        .forEach(
            (name, a) -> {
              if (a.eviction().get().reason() == EvictionReason.OverQuota
                  && before.spec().admitted().containsKey(name)) {
                victims.put(name, before.spec().admitted().get(name));
              }
            });
    if (victims.isEmpty()) {
      return;
    }
    var unneeded = new java.util.TreeSet<>(victims.keySet());
    for (var recent : recentSpecs) {
      var tally = holding(recent.getValue(), before);
      victims.values().forEach(v -> tally.remove(v.queue(), v.usage()));
      for (var v : victims.entrySet()) {
        var a = v.getValue();
        tally.add(a.queue(), a.usage());
        if (!overIn(recent.getValue(), tally).isEmpty()) {
          unneeded.remove(v.getKey());
        }
        tally.remove(a.queue(), a.usage());
      }
    }
    if (!unneeded.isEmpty()) {
      out.add(
          "Q5: "
              + unneeded
              + " evicted (OverQuota) with "
              + victims.keySet()
              + ", but its queue stays within what it may hold without evicting it: more was"
              + " taken than needed");
    }
  }

  /**
   * Q2's whole-workload half: an admission shrinks only as far as its workload's spec does (a
   * scale-down). One cut below what the spec still wants (per-pod preemption) leaves part of a job
   * running while the rest is gone.
   */
  private void wholeWorkloads(
      QuotaLedger before,
      QuotaLedger after,
      java.util.Map<String, Workload> workloads,
      List<String> out) {
    after
        .spec()
        .admitted()
        .forEach(
            (name, a) -> {
              var was = before.spec().admitted().get(name);
              var w = workloads.get(name);
              if (was == null || !was.uid().equals(a.uid()) || w == null) {
                return;
              }
              for (var g : w.spec().groups()) {
                int from = was.replicas().getOrDefault(g.name(), 0);
                int to = a.replicas().getOrDefault(g.name(), 0);
                // The writer may have decided on an older spec: judged against the fewest
                // replicas this workload's spec has ever asked of the group.
                int fewest = fewestWanted.getOrDefault(a.uid() + "/" + g.name(), g.replicas());
                if (to < from && to < fewest) {
                  out.add(
                      "Q2: workload "
                          + name
                          + "'s admission cut from "
                          + from
                          + " to "
                          + to
                          + " worker(s) of group "
                          + g.name()
                          + " while its spec never asked fewer than "
                          + fewest
                          + ": part of a job evicted, the rest left running");
                }
              }
            });
  }

  /** Q2 over the entries evicted between {@code before} and {@code after}. */
  private void rightful(QuotaLedger before, QuotaLedger after, List<String> out) {
    var present = new java.util.HashSet<String>();
    after.spec().admitted().values().forEach(a -> present.add(a.uid()));
    after.spec().nominated().values().forEach(n -> present.add(n.uid()));
    evictedBy.values().removeIf(p -> !present.contains(p));
    var quota = specs(before).map(sp -> CohortQuota.of(sp, before.spec().admitted()));
    after
        .spec()
        .newlyEvicted(before.spec())
        .forEach(
            (name, a) -> {
              var was = before.spec().admitted().get(name);
              evictions++;
              var e = a.eviction().get();
              if (!e.reason().hasPreemptor()) {
                return; // no preemptor: StartPromises judges it (Q3), or noMoreThanNeeded (Q5)
              }
              var n = after.spec().nominated().get(e.by());
              String wrong = null;
              if (was == null) {
                wrong = "was not admitted";
              } else if (n == null || !n.victims().contains(a.uid())) {
                wrong = "its preemptor " + e.by() + " is not nominated for it";
              } else if (RightfulEviction.cycles(a, e.byUid())
                  || a.uid().equals(evictedBy.get(e.byUid()))) {
                wrong = "it had evicted " + e.by() + " itself, which is still there (a cycle)";
              } else if (!quota
                  .flatMap(q -> RightfulEviction.promised(n.queue(), n.priority(), a, q))
                  .equals(Optional.of(e.reason()))) {
                wrong =
                    e.reason() == EvictionReason.Preempted
                        ? "priority "
                            + a.priority()
                            + " is not below its preemptor's "
                            + n.priority()
                        : "its queue " + a.queue() + " borrowed nothing it uses";
              }
              evictedBy.put(a.uid(), e.byUid());
              if (wrong != null) {
                out.add(
                    "Q2: "
                        + name
                        + " evicted ("
                        + e.reason()
                        + ") for "
                        + e.by()
                        + ", but "
                        + wrong);
              }
            });
  }

  /** Why some workload waits for admission though it fits its queue's room; empty if none does. */
  String notConverged() {
    var view = world.view();
    // An Evict queue over what it may hold keeps the run going until Q5 judges it.
    if (!over.isEmpty()) {
      var q = over.keySet().iterator().next();
      return "queue "
          + q
          + " is set to overQuota: Evict and uses more than it may hold: its workloads are"
          + " evicted";
    }
    var priorities = new HashMap<String, Integer>();
    world
        .api()
        .list(Kinds.PRIORITY_CLASS)
        .items()
        .forEach(p -> priorities.put(p.metadata().name(), p.spec().value()));
    // Each queue's waiting workloads in the order they are taken: a StrictFIFO queue is judged by
    // its head only (those behind it wait for it, rightly), a BestEffortFIFO queue by each.
    var charge = migCharge();
    var waiting =
        view.workloads().stream()
            .filter(w -> !w.metadata().isDeleting() && !finished(w))
            .filter(
                w ->
                    admitted(w)
                        .filter(a -> a.usage().equals(Demand.of(w.spec(), d -> 1, charge)))
                        .isEmpty())
            .sorted(QueueOrder.of(priorities))
            .toList();
    var blocked = new java.util.HashSet<String>();
    for (var w : waiting) {
      var queue = view.queue(w.spec().queueName());
      if (queue.isEmpty() || blocked.contains(queue.get().metadata().name())) {
        continue;
      }
      if (queue.get().spec().ordering() == QueueOrdering.StrictFIFO) {
        blocked.add(queue.get().metadata().name());
      }
      var ledger =
          view.ledgers().stream()
              .filter(l -> l.metadata().name().equals(queue.get().cohort()))
              .findFirst();
      if (starts.backingOff(w, ledger)) {
        continue; // it waits out its backoff, as it should
      }
      var all = new HashMap<>(ledger.flatMap(this::specs).orElse(java.util.Map.of()));
      all.put(queue.get().metadata().name(), queue.get().spec());
      var others = new HashMap<>(ledger.map(l -> l.spec().admitted()).orElse(java.util.Map.of()));
      others.remove(w.metadata().name()); // a scale-up is admitted again whole
      var quota = CohortQuota.of(all, others);
      var starved =
          starved(
              w,
              Demand.of(w.spec(), d -> 1, charge),
              queue.get(),
              ledger.map(l -> l.spec().admitted()).orElse(java.util.Map.of()),
              priorities);
      if (starved.isPresent()) {
        return starved.get()
            + "; its cohort's ledger: "
            + ledger.map(l -> l.spec().toString()).orElse("none")
            + "; queues: "
            + all;
      }
      var demand = Demand.of(w.spec(), d -> 1, charge);
      if (quota.plus(queue.get().metadata().name(), demand).breach(demand.keySet()).isEmpty()) {
        return "workload "
            + w.metadata().name()
            + " fits the room of queue "
            + w.spec().queueName()
            + " but is not admitted"
            + (admitted(w).isPresent() ? " at its new size" : "")
            + dev.quartermaster.api.meta.Condition.find(
                    w.status().conditions(),
                    dev.quartermaster.api.workload.WorkloadConditions.ADMITTED)
                .map(c -> " (it says " + c.reason() + ": " + c.message() + ")")
                .orElse("")
            + "; its tasks: "
            + view.tasks().stream()
                .filter(t -> w.metadata().name().equals(t.metadata().labels().get(Labels.WORKLOAD)))
                .map(
                    t ->
                        t.metadata().name()
                            + " "
                            + t.status().phase()
                            + (t.metadata().isDeleting() ? " (deleting)" : "")
                            + " on "
                            + t.spec().node().orElse("no node"))
                .toList()
            + "; its cohort's ledger: "
            + ledger.map(l -> l.spec().toString()).orElse("none");
      }
    }
    return "";
  }

  /**
   * L3 no starvation: {@code w}, waiting with no admission (a scale-up of an admitted workload
   * waits for room, it preempts nobody), fits its queue's nominal quota beside what its queue
   * admits that it may not preempt (its priority or higher), so preemption and reclaim owe it a
   * place. Not judged when an admission it could need evicted it once (the anti-cycle rule keeps
   * that one).
   */
  private static Optional<String> starved(
      Workload w,
      java.util.Map<String, Integer> demand,
      dev.quartermaster.api.queue.Queue queue,
      java.util.Map<String, dev.quartermaster.api.queue.Admitted> admitted,
      java.util.Map<String, Integer> priorities) {
    var name = queue.metadata().name();
    int priority = QueueOrder.priorityOf(w, priorities);
    var uid = w.metadata().uid();
    if (admitted.containsKey(w.metadata().name())
        || admitted.values().stream().anyMatch(a -> a.preempted().contains(uid))) {
      return Optional.empty();
    }
    var kept = new HashMap<String, Long>(); // long: usages summed may pass an int
    admitted.values().stream()
        .filter(a -> a.queue().equals(name) && !a.evicting() && a.priority() >= priority)
        .forEach(a -> a.usage().forEach((c, n) -> kept.merge(c, (long) n, Long::sum)));
    for (var e : demand.entrySet()) {
      var nominal = queue.spec().nominal(e.getKey());
      if (nominal.isPresent()
          && kept.getOrDefault(e.getKey(), 0L) + e.getValue() > nominal.getAsInt()) {
        return Optional.empty();
      }
    }
    return Optional.of(
        "L3: workload "
            + w.metadata().name()
            + " ("
            + demand
            + ", priority "
            + priority
            + ") fits the nominal quota "
            + queue.spec().quota()
            + " of queue "
            + name
            + " beside "
            + kept
            + " admitted there at its priority or higher, but is not admitted: nothing was"
            + " preempted or reclaimed for it");
  }

  /** What a device of each class costs in MIG compute slices, as the store's classes say. */
  private java.util.function.ToIntFunction<String> migCharge() {
    return dev.quartermaster.api.device.mig.MigCharge.of(
        world.api().list(Kinds.DEVICE_CLASS).items());
  }

  /** Whether {@code w}'s job is over (its quota released), as the store shows its tasks. */
  private boolean finished(Workload w) {
    var tasks = world.view().tasks();
    return JobEnd.reached(
        w,
        group ->
            tasks.stream()
                .filter(
                    t ->
                        w.metadata().name().equals(t.metadata().labels().get(Labels.WORKLOAD))
                            && group.equals(t.metadata().labels().get(Labels.GROUP)))
                .toList());
  }

  private Optional<dev.quartermaster.api.queue.Admitted> admitted(Workload w) {
    return admittedIn(world.view(), w);
  }

  /** {@code w}'s entry in its cohort's ledger as the store holds it. */
  static Optional<dev.quartermaster.api.queue.Admitted> admittedIn(StoreView view, Workload w) {
    var queue = view.queue(w.spec().queueName());
    return queue
        .flatMap(
            q ->
                view.ledgers().stream()
                    .filter(l -> l.metadata().name().equals(q.cohort()))
                    .findFirst())
        .map(l -> l.spec().admitted().get(w.metadata().name()))
        .filter(a -> a.uid().equals(w.metadata().uid()));
  }

  private Optional<java.util.Map<String, QueueSpec>> specs(QuotaLedger ledger) {
    return Optional.of(specsIn(world.view(), ledger));
  }

  /** The ledger's queues' specs as {@code view} holds them (those still of its cohort). */
  static java.util.Map<String, QueueSpec> specsIn(StoreView view, QuotaLedger ledger) {
    var specs = new HashMap<String, QueueSpec>();
    for (var name : ledger.spec().queues()) {
      view.queue(name)
          .filter(q -> q.cohort().equals(ledger.metadata().name()))
          .ifPresent(q -> specs.put(name, q.spec()));
    }
    return specs;
  }
}
