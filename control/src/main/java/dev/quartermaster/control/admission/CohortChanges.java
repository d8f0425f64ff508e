package dev.quartermaster.control.admission;

import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a cohort changed since its last whole decision: every trigger but a start counts a change
 * ({@link AdmissionTriggers}), and a pass over a cohort with none since, before that decision's
 * recheck is due, only marks what started ({@code AdmissionController}). Such a decision would
 * change nothing else: what it reads besides tasks' starts reaches it through those triggers (the
 * list is {@link AdmissionTriggers}'), and what it reads of the clock either comes due at the
 * recheck (start timeouts, backoffs) or only holds back more as time passes (backfill). At 10,000
 * nodes the marks of starts were most of admission's passes, each a decision of 1,000 workloads.
 */
final class CohortChanges {
  /**
   * One pass as it begins.
   *
   * @param changes the cohort's changes counted when it began
   * @param onlyMarks whether none came since the last whole decision, whose recheck is not due
   * @param recheck when that recheck is due, from now (empty: none)
   */
  record Pass(String cohort, long changes, boolean onlyMarks, Optional<Duration> recheck) {}

  /** A whole decision: the changes it saw, when it ended (monotonic), and its recheck from then. */
  private record Decided(long changes, long atNanos, Optional<Duration> recheck) {}

  private final Env env;
  private final boolean counting;
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private final Map<String, Decided> decided = new ConcurrentHashMap<>();

  /**
   * @param counting whether changes are counted: always, but in the simulation's naive variant
   *     ({@link Requeueing#wholeOnChange}), whose passes decide whole only at their recheck
   */
  CohortChanges(Env env, boolean counting) {
    this.env = env;
    this.counting = counting;
  }

  /** Something a decision of {@code cohort} reads changed: counted before its pass is queued. */
  void changed(String cohort) {
    if (counting) {
      counts.computeIfAbsent(cohort, c -> new AtomicLong()).incrementAndGet();
    }
  }

  /** A pass of {@code cohort} begins: read before anything it decides on. */
  Pass begin(String cohort) {
    var count = counts.get(cohort);
    long changes = count == null ? 0 : count.get();
    var last = decided.get(cohort);
    if (last == null || last.changes() != changes) {
      return new Pass(cohort, changes, false, Optional.empty());
    }
    var since = Duration.ofNanos(env.nanoTime() - last.atNanos());
    var left = last.recheck().map(r -> r.minus(since));
    if (left.isPresent() && !left.get().isPositive()) {
      return new Pass(cohort, changes, false, Optional.empty());
    }
    return new Pass(cohort, changes, true, left);
  }

  /** {@code pass} decided the whole cohort, to be decided again after {@code recheck} if due. */
  void decided(Pass pass, Optional<Duration> recheck) {
    decided.put(pass.cohort(), new Decided(pass.changes(), env.nanoTime(), recheck));
  }

  /**
   * {@code cohort} has no queue and no ledger: nothing of it is kept (a workload naming a queue
   * that does not exist is a cohort of its own name). Its next pass decides whole.
   */
  void forget(String cohort) {
    counts.remove(cohort);
    decided.remove(cohort);
  }

  /** A new term: every cohort is decided whole again. */
  void clear() {
    decided.clear();
  }
}
