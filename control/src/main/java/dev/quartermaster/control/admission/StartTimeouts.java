package dev.quartermaster.control.admission;

import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.queue.AdmissionTransitions;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.GroupTaskCounts;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * The start timeout (Kueue's {@code waitForPodsReady}): an admitted workload that has not run
 * within {@link dev.quartermaster.api.workload.WorkloadSpec#startTimeout} gives its quota back. Its
 * ledger entry is marked {@link Admitted#started} once every task it needs runs (each group's gang
 * share, or all its admitted replicas; a task ended for good counts), and from then on the timeout
 * no longer applies; an entry past its timeout without that mark is evicted with {@link
 * EvictionReason#StartTimeout}, and then goes the way of every eviction: its tasks stop, the entry
 * is released, and the workload waits out a backoff ({@link Requeues}).
 *
 * <p>The wait is timed on this process's monotonic clock from when it first saw the admission, not
 * from the entry's wall-clock time: a clock stepped back would stretch it, one stepped forward
 * would evict workloads that had no chance to start. A new leader gives each workload its full
 * timeout again (as a node's grace starts again with a new node lifecycle controller). Only a
 * workload whose queue limits a class it uses is timed: in a queue without a quota on it, what it
 * holds nobody else waits for.
 */
final class StartTimeouts {
  /** An admission as first seen: by whom (uid, admission time) and when (monotonic). */
  private record Seen(String uid, Instant at, long nanos) {}

  private final Env env;

  /** Cohort → workload → its admission as first seen: a look walks its own cohort's alone. */
  private final Map<String, Map<String, Seen>> seen = new ConcurrentHashMap<>();

  StartTimeouts(Env env) {
    this.env = env;
  }

  /**
   * @param admitted the cohort's entries after this look: newly started ones marked, those past
   *     their timeout evicted
   * @param timedOut the workloads evicted now, with what each lacked
   * @param recheck when the next timeout is due, if one runs
   */
  record Look(
      Map<String, Admitted> admitted, Map<String, String> timedOut, Optional<Duration> recheck) {}

  /**
   * Looks at {@code cohort}'s entries: {@code workloads} by name, {@code queues} by name, {@code
   * countsOf} the counts of a workload's tasks of a group.
   */
  Look look(
      String cohort,
      Map<String, Admitted> entries,
      Map<String, Workload> workloads,
      Map<String, QueueSpec> queues,
      BiFunction<Workload, String, GroupTaskCounts> countsOf) {
    var out = new TreeMap<>(entries);
    var timedOut = new TreeMap<String, String>();
    Optional<Duration> recheck = Optional.empty();
    long now = env.nanoTime();
    for (var e : entries.entrySet()) {
      var name = e.getKey();
      var a = e.getValue();
      var w = workloads.get(name);
      if (w == null || !w.metadata().uid().equals(a.uid()) || a.evicting() || a.started()) {
        continue;
      }
      var missing = missing(w, a, countsOf);
      if (missing.isEmpty()) {
        out.put(name, AdmissionTransitions.started(a));
        continue;
      }
      if (!limited(a, queues.get(a.queue()))) {
        continue;
      }
      var s =
          seen.computeIfAbsent(cohort, c -> new ConcurrentHashMap<>())
              .compute(
                  name,
                  (k, old) ->
                      old != null && old.uid().equals(a.uid()) && old.at().equals(a.at())
                          ? old
                          : new Seen(a.uid(), a.at(), now));
      var left = w.spec().startTimeout().minusNanos(now - s.nanos());
      if (left.isPositive()) {
        var due = left;
        recheck = Optional.of(recheck.filter(r -> r.compareTo(due) < 0).orElse(due));
        continue;
      }
      out.put(name, AdmissionTransitions.timedOut(a, env.now()));
      timedOut.put(name, String.join(", ", missing));
    }
    // Judged on the entries as stored: a timeout whose write failed is due again at once.
    var ours = seen.get(cohort);
    if (ours != null) {
      ours.entrySet()
          .removeIf(
              x -> {
                var a = entries.get(x.getKey());
                return a == null || a.evicting() || a.started();
              });
      if (ours.isEmpty()) {
        seen.remove(cohort, ours);
      }
    }
    return new Look(out, timedOut, recheck);
  }

  /**
   * What keeps {@code w} from having started under {@code a}: per group short of what it needs
   * running ({@code workers 1 of 2 running}); empty once each group has it.
   */
  static List<String> missing(
      Workload w, Admitted a, BiFunction<Workload, String, GroupTaskCounts> countsOf) {
    var out = new ArrayList<String>();
    for (var g : w.spec().groups()) {
      int share =
          WorkloadGangs.ofGroup(w.spec(), g.name())
              .map(gang -> gang.shareOf(g.name()))
              .orElse(g.replicas());
      int need = Math.min(share, a.replicas().getOrDefault(g.name(), 0));
      int running = countsOf.apply(w, g.name()).started(g.restartPolicy());
      if (running < need) {
        out.add(g.name() + " " + running + " of " + need + " running");
      }
    }
    return out;
  }

  /** Whether its queue limits a class the entry uses: else nobody waits for what it holds. */
  private static boolean limited(Admitted a, QueueSpec queue) {
    return queue != null && queue.limitsAny(a.usage().keySet());
  }
}
