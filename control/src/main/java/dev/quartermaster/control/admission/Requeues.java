package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.Requeue;
import dev.quartermaster.api.workload.RestartBackoff;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The backoff an evicted workload waits out before its queue may admit it again ({@link Requeue}
 * records in its cohort's ledger, written with the release that ends the eviction): a preempted
 * victim is not admitted again at once (it would preempt, or be preempted, again), nor is one that
 * did not start in time (it would hold the quota idle again). The wait doubles with each eviction
 * in a row, 10 s to 5 min — the shape of a crash loop's ({@link RestartBackoff#DEFAULT}) — and is
 * timed on this process's monotonic clock from when it first saw the record.
 */
final class Requeues {
  static final RestartBackoff BACKOFF = RestartBackoff.DEFAULT;

  /** A record as first seen: whose, which one, and when (monotonic). */
  private record Seen(String uid, int count, long nanos) {}

  private final Env env;
  private final Map<String, Seen> seen = new ConcurrentHashMap<>();

  Requeues(Env env) {
    this.env = env;
  }

  /**
   * @param backingOff the workloads whose backoff is not over
   * @param recheck when the next one is
   */
  record Waiting(Set<String> backingOff, Optional<Duration> recheck) {}

  /** Which of {@code requeued}'s workloads still wait, on this process's clock. */
  Waiting waiting(Map<String, Requeue> requeued, Map<String, Workload> workloads) {
    var out = new HashSet<String>();
    Optional<Duration> recheck = Optional.empty();
    long now = env.nanoTime();
    for (var e : requeued.entrySet()) {
      var r = e.getValue();
      var w = workloads.get(e.getKey());
      if (w == null || !w.metadata().uid().equals(r.uid())) {
        continue;
      }
      var s =
          seen.compute(
              e.getKey(),
              (k, old) ->
                  old != null && old.uid().equals(r.uid()) && old.count() == r.count()
                      ? old
                      : new Seen(r.uid(), r.count(), now));
      var left = Duration.ofSeconds(r.delaySeconds()).minusNanos(now - s.nanos());
      if (left.isPositive()) {
        out.add(e.getKey());
        recheck = Optional.of(recheck.filter(x -> x.compareTo(left) < 0).orElse(left));
      }
    }
    return new Waiting(out, recheck);
  }

  /**
   * The records of the ledger that follows {@code next}: one for each workload whose evicted entry
   * in {@code before} that ledger releases (its count one more than its last), kept for those still
   * waiting or admitted without having run since, dropped for those that ran, finished, or are
   * gone.
   */
  Map<String, Requeue> next(
      QuotaLedgerSpec before,
      QuotaLedgerSpec next,
      Collection<String> released,
      Map<String, Workload> workloads,
      Set<String> finished) {
    var out = new TreeMap<String, Requeue>();
    before
        .requeued()
        .forEach(
            (name, r) -> {
              var w = workloads.get(name);
              var entry = Optional.ofNullable(next.admitted().get(name));
              if (w != null
                  && w.metadata().uid().equals(r.uid())
                  && !w.metadata().isDeleting()
                  && !finished.contains(name)
                  && !entry.map(Admitted::started).orElse(false)) {
                out.put(name, r);
              }
            });
    for (var name : released) {
      var was = before.admitted().get(name);
      var w = workloads.get(name);
      if (was == null
          || was.eviction().isEmpty()
          || w == null
          || !w.metadata().uid().equals(was.uid())
          || w.metadata().isDeleting()
          || finished.contains(name)) {
        continue;
      }
      var last = Optional.ofNullable(out.get(name)).filter(r -> r.uid().equals(was.uid()));
      int count = last.map(Requeue::count).orElse(0) + 1;
      out.put(
          name,
          new Requeue(
              was.uid(),
              count,
              was.eviction().get().reason(),
              env.now(),
              BACKOFF.delayBefore(count).toSeconds()));
    }
    seen.keySet().removeIf(k -> !out.containsKey(k) && before.requeued().containsKey(k));
    return out;
  }
}
