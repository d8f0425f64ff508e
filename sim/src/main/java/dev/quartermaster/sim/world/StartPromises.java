package dev.quartermaster.sim.world;

import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Issue 44's promises about admissions that do not start, checked on the store after every step:
 *
 * <ul>
 *   <li><b>Q3 start timeout</b>: an admission whose queue limits a class it uses, and whose
 *       workload has not run under it (every group with its gang share, or all its admitted
 *       replicas, running or ended for good, as the store shows at some step), is evicted within
 *       its start timeout plus {@link #BOUND}: quota admitted to a workload that cannot be placed
 *       goes back. A {@code StartTimeout} eviction comes no sooner than the timeout after the
 *       admission, and only of such a workload (the store refuses one of an admission marked
 *       started).
 *   <li><b>Q4 backoff</b>: a workload whose evicted entry was released is not admitted again before
 *       the backoff its cohort's ledger recorded with the release ({@code requeued}), and never
 *       within {@link #FIRST_BACKOFF} of it: neither a preempted victim nor a timed-out workload is
 *       taken back at once.
 * </ul>
 *
 * Times are the world's own (virtual, monotonic): the controller times both on its monotonic clock
 * from when it first sees the admission or the record, never sooner than the store shows them.
 */
final class StartPromises {
  /**
   * Q3's slack beyond a workload's start timeout: a new leader times each admission again from when
   * it first sees it (a lease of 15 s, a pause of up to 40 s before it), and the eviction is one
   * ledger write after the pass that finds it due. Two minutes, as for L2 and G3.
   */
  static final Duration BOUND = Duration.ofMinutes(2);

  /** The least backoff after an eviction (the first one's). */
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(10);

  /** An admission (name, uid and admission time) as first seen, and whether it ran. */
  private static final class Seen {
    final long nanos;
    boolean ran;

    Seen(long nanos) {
      this.nanos = nanos;
    }
  }

  /** A release of an evicted entry: when, and the backoff recorded with it. */
  private record Release(long nanos, long delaySeconds) {}

  private final WholeCluster world;
  private final Map<String, QuotaLedger> last = new TreeMap<>();
  private final Map<String, Seen> admissions = new HashMap<>();
  private final Map<String, Release> releases = new HashMap<>();

  /** Workloads (uid) whose first admission that had not run was given its time to be judged. */
  private final Set<String> judgedOnce = new HashSet<>();

  StartPromises(WholeCluster world) {
    this.world = world;
  }

  void check(List<String> out) {
    var view = world.view();
    long now = world.env().nanoTime();
    var workloads = new HashMap<String, Workload>();
    view.workloads().forEach(w -> workloads.put(w.metadata().name(), w));
    var present = new HashSet<String>();
    for (var ledger : view.ledgers()) {
      var before = Optional.ofNullable(last.put(ledger.metadata().name(), ledger));
      if (before.isPresent() && !before.get().equals(ledger)) {
        changes(before.get(), ledger, now, out);
      }
      ledger
          .spec()
          .admitted()
          .forEach(
              (name, a) -> {
                var key = key(name, a);
                present.add(key);
                var seen = admissions.computeIfAbsent(key, k -> new Seen(now));
                var w = workloads.get(name);
                if (a.evicting()) {
                  judgedOnce.add(a.uid()); // it gave its quota back
                }
                if (w == null || !w.metadata().uid().equals(a.uid()) || a.evicting()) {
                  return;
                }
                seen.ran |= ran(w, a);
                var timeout = w.spec().startTimeout();
                if (seen.ran || now - seen.nanos > timeout.plus(BOUND).toNanos()) {
                  judgedOnce.add(a.uid());
                }
                if (!seen.ran && limited(a) && now - seen.nanos > timeout.plus(BOUND).toNanos()) {
                  out.add(
                      "Q3: workload "
                          + name
                          + " admitted "
                          + Duration.ofNanos(now - seen.nanos).toSeconds()
                          + " s ago has not run, and holds its quota past its start timeout of "
                          + timeout.toSeconds()
                          + " s; its entry: "
                          + a);
                }
              });
    }
    admissions.keySet().retainAll(present);
  }

  /** Q3's evictions and Q4's admissions between two ledgers of a cohort. */
  private void changes(QuotaLedger before, QuotaLedger after, long now, List<String> out) {
    after
        .spec()
        .newlyEvicted(before.spec())
        .forEach(
            (name, a) -> {
              var e = a.eviction().get();
              if (e.reason() != dev.quartermaster.api.queue.EvictionReason.StartTimeout) {
                return; // QueuePromises judges the others (Q2, Q5)
              }
              var seen = admissions.get(key(name, a));
              var w =
                  world.view().workloads().stream()
                      .filter(x -> x.metadata().uid().equals(a.uid()))
                      .findFirst();
              if (seen != null && w.isPresent()) {
                var timeout = w.get().spec().startTimeout();
                if (now - seen.nanos < timeout.toNanos()) {
                  out.add(
                      "Q3: workload "
                          + name
                          + " evicted ("
                          + e.reason()
                          + ") "
                          + Duration.ofNanos(now - seen.nanos).toSeconds()
                          + " s after its admission, before its start timeout of "
                          + timeout.toSeconds()
                          + " s");
                }
              }
            });
    before
        .spec()
        .admitted()
        .forEach(
            (name, was) -> {
              var now1 = after.spec().admitted().get(name);
              if (was.evicting() && (now1 == null || !now1.uid().equals(was.uid()))) {
                var delay =
                    Optional.ofNullable(after.spec().requeued().get(name))
                        .filter(r -> r.uid().equals(was.uid()))
                        .map(r -> r.delaySeconds())
                        .orElse(0L);
                releases.put(was.uid(), new Release(now, delay));
              }
            });
    after
        .spec()
        .admitted()
        .forEach(
            (name, a) -> {
              var was = before.spec().admitted().get(name);
              if (was != null && was.uid().equals(a.uid())) {
                return;
              }
              var release = releases.remove(a.uid());
              if (release == null) {
                return;
              }
              var owed =
                  Duration.ofSeconds(Math.max(release.delaySeconds(), FIRST_BACKOFF.toSeconds()));
              long waited = now - release.nanos();
              if (waited < owed.toNanos()) {
                out.add(
                    "Q4: workload "
                        + name
                        + " admitted again "
                        + Duration.ofNanos(waited).toMillis()
                        + " ms after its evicted entry was released; it owed a backoff of "
                        + owed.toSeconds()
                        + " s");
              }
            });
  }

  /**
   * Whether {@code w} waits out the backoff of its last eviction now (its cohort's ledger records
   * one, and the store released it less than that long ago, with some slack for a new leader): it
   * is pending as it should be.
   */
  boolean backingOff(Workload w, Optional<QuotaLedger> ledger) {
    var record =
        ledger
            .map(l -> l.spec().requeued().get(w.metadata().name()))
            .filter(r -> r.uid().equals(w.metadata().uid()));
    var release = releases.get(w.metadata().uid());
    return record.isPresent()
        && release != null
        && world.env().nanoTime() - release.nanos()
            < Duration.ofSeconds(record.get().delaySeconds()).plus(BOUND).toNanos();
  }

  /**
   * A workload's first admission that has not run keeps the run going until Q3 can judge it (its
   * start timeout and {@link #BOUND} are over, or it ran, or it gave its quota back): else a run
   * whose work has settled would end before a workload that never runs held its quota for long.
   * Only the first: workloads that cannot run for want of devices take the quota in turns for as
   * long as that lasts, as they should.
   */
  String notConverged() {
    long now = world.env().nanoTime();
    for (var ledger : world.view().ledgers()) {
      for (var e : ledger.spec().admitted().entrySet()) {
        var a = e.getValue();
        var seen = admissions.get(key(e.getKey(), a));
        if (seen != null
            && !seen.ran
            && !a.evicting()
            && limited(a)
            && !judgedOnce.contains(a.uid())) {
          return "workload "
              + e.getKey()
              + " admitted "
              + Duration.ofNanos(now - seen.nanos).toSeconds()
              + " s ago has not run: it runs, or its start timeout gives its quota back";
        }
      }
    }
    return "";
  }

  private static String key(String name, Admitted a) {
    return name + "/" + a.uid() + "/" + a.at();
  }

  /** Whether its queue limits a class it uses (only then does its start timeout apply). */
  private boolean limited(Admitted a) {
    return world
        .view()
        .queue(a.queue())
        .map(q -> q.spec().limitsAny(a.usage().keySet()))
        .orElse(false);
  }

  /**
   * Whether every group of {@code w} has what it needs running under {@code a}: its gang share, or
   * all its admitted replicas (a task ended for good counts).
   */
  private boolean ran(Workload w, Admitted a) {
    for (var g : w.spec().groups()) {
      int share =
          WorkloadGangs.ofGroup(w.spec(), g.name())
              .map(gang -> gang.shareOf(g.name()))
              .orElse(g.replicas());
      int need = Math.min(share, a.replicas().getOrDefault(g.name(), 0));
      long running =
          world.view().tasks().stream()
              .filter(
                  t ->
                      t.metadata().owner().map(o -> o.uid().equals(a.uid())).orElse(false)
                          && g.name().equals(t.metadata().labels().get(Labels.GROUP))
                          && ((t.status().phase() == TaskPhase.Running
                                  && !t.metadata().isDeleting())
                              || g.restartPolicy().endedForGood(t.status().phase())))
              .count();
      if (running < need) {
        return false;
      }
    }
    return true;
  }
}
