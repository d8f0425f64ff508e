package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.AdmissionTransitions;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.workload.Workload;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A decision's first step: the ledger read, carried over to the next. An entry whose workload is
 * gone, re-created, being deleted, moved, finished, or whose queue is gone is released; an evicted
 * one once its tasks have stopped. A scale-down shrinks as its surplus tasks go; a scale-up keeps
 * its old admission, marked grown, until it is admitted again whole. A nomination is kept while its
 * workload waits as it was.
 *
 * @param kept the entries carried over (name → entry), to be changed by the later steps
 * @param released the workloads whose entries this decision removed
 * @param grown the kept workloads scaled up, pending again at their new size
 * @param back the evicted workloads released now: pending again from the next decision on (so the
 *     store sees the release, judged on its own, before any new admission)
 * @param nominated the nominations carried over (name → nomination), to be changed likewise
 */
record CarryOver(
    TreeMap<String, Admitted> kept,
    List<String> released,
    Set<String> grown,
    Set<String> back,
    TreeMap<String, Nomination> nominated) {

  static CarryOver of(CohortSnapshot s) {
    var kept = new TreeMap<String, Admitted>();
    var released = new ArrayList<String>();
    var grown = new HashSet<String>();
    var back = new HashSet<String>();
    s.ledger()
        .admitted()
        .forEach(
            (name, a) -> {
              var w = s.byName().get(name);
              Optional<Admitted> carried;
              if (w == null || s.finished(name) || !admits(s, w, a.uid(), a.queue())) {
                carried = AdmissionTransitions.released(a);
              } else if (a.evicting()) {
                boolean stopped = s.facts().stopped().contains(name);
                if (stopped) {
                  back.add(name);
                }
                carried = stopped ? AdmissionTransitions.released(a) : Optional.of(a);
              } else {
                var replicas = CohortSnapshot.replicasOf(w.spec());
                var demand = s.demand(w.spec());
                if (replicas.equals(a.replicas()) && demand.equals(a.usage())) {
                  carried = Optional.of(a);
                } else if (within(replicas, a.replicas()) && within(demand, a.usage())) {
                  carried = Optional.of(shrunk(s, w, a));
                } else {
                  carried = Optional.of(a);
                  grown.add(name);
                }
              }
              carried.ifPresentOrElse(c -> kept.put(name, c), () -> released.add(name));
            });
    var nominated = new TreeMap<String, Nomination>();
    s.ledger()
        .nominated()
        .forEach(
            (name, n) -> {
              var w = s.byName().get(name);
              boolean waits =
                  w != null
                      && admits(s, w, n.uid(), n.queue())
                      && !kept.containsKey(name)
                      && !s.finished(name);
              var carried = waits ? Optional.of(n) : AdmissionTransitions.withdrawn(n);
              carried.ifPresent(c -> nominated.put(name, c));
            });
    return new CarryOver(kept, released, grown, back, nominated);
  }

  /**
   * Whether an entry or nomination of {@code uid} through {@code queue} still stands for {@code w}.
   */
  private static boolean admits(CohortSnapshot s, Workload w, String uid, String queue) {
    return w.metadata().uid().equals(uid)
        && !w.metadata().isDeleting()
        && w.spec().queueName().equals(queue)
        && s.specs().containsKey(queue);
  }

  /** Whether {@code w} is admitted for more replicas than its spec asks of some group. */
  static boolean shrinking(Workload w, Admitted a) {
    return w.spec().groups().stream()
        .anyMatch(g -> a.replicas().getOrDefault(g.name(), 0) > g.replicas());
  }

  /**
   * {@code a} after a scale-down of {@code w}: each group keeps what its live tasks still take, at
   * most what was admitted.
   */
  private static Admitted shrunk(CohortSnapshot s, Workload w, Admitted a) {
    var taken = s.facts().taken().getOrDefault(w.metadata().name(), Map.of());
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
    return a.resized(CohortSnapshot.replicasOf(held), s.demand(held));
  }

  /** Whether every count of {@code next} is at most {@code was}'s (absent: 0). */
  private static boolean within(Map<String, Integer> next, Map<String, Integer> was) {
    return next.entrySet().stream().allMatch(e -> e.getValue() <= was.getOrDefault(e.getKey(), 0));
  }
}
