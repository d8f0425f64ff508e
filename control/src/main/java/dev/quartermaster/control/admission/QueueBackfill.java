package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Admission's backfill (issue 44): in a {@code BestEffortFIFO} queue whose head does not fit, the
 * head reserves the quota that comes back soonest, and a workload behind it is admitted only if it
 * gives its quota back before the head's start. Pure.
 *
 * <p>The head's start is the first moment at which, releasing the admitted workloads of the cohort
 * in the order they end by their declared deadlines ({@link #endOf}), the head fits. When it would
 * need a workload that declares none to end, its start is never known, and it reserves nothing: the
 * queue goes on as {@code BestEffortFIFO} always did (holding the quota back for a start that may
 * never come would make every queue without deadlines a {@code StrictFIFO} one, and a workload that
 * fits would wait for ever: the campaign's seed 25 caught that as L1). So does a head that would
 * not fit even with every admission released (more than its queue may ever have).
 *
 * <p>An admitted workload's end is an estimate — when it was admitted, plus {@link #START} for its
 * placement and start, plus its longest deadline — as the quota counts from admission, before any
 * task runs. The placement level ({@code HeadReservation}) is where a start is kept exactly; this
 * keeps admission from handing the quota the head waits for to a stream of later workloads.
 */
final class QueueBackfill {
  /** What admission allows for a workload to be placed and start before its deadline runs. */
  static final Duration START = Duration.ofSeconds(30);

  private QueueBackfill() {}

  /** The blocked head's start. */
  sealed interface Start {
    /** It fits at {@code at}: a workload ending by then may pass it. */
    record At(Instant at) implements Start {}

    /** It waits for a workload without a deadline: it reserves nothing. */
    record Unknown() implements Start {}

    /** It would not fit even with everything released: it holds nothing back. */
    record Never() implements Start {}
  }

  /**
   * When {@code spec}, admitted at {@code at}, gives its quota back at the latest: empty when a
   * group of it declares no {@code activeDeadlineSeconds}.
   */
  static Optional<Instant> endOf(WorkloadSpec spec, Instant at) {
    long longest = 0;
    for (WorkerGroup g : spec.groups()) {
      var d = g.template().activeDeadlineSeconds();
      if (d.isEmpty()) {
        return Optional.empty();
      }
      longest = Math.max(longest, d.get());
    }
    return Optional.of(at.plus(START).plusSeconds(longest));
  }

  /**
   * The start of head {@code head} that does not fit {@code quota} now ({@code fits} says whether
   * it fits a quota with some admissions released), given the cohort's admissions {@code kept} and
   * their workloads {@code byName}; {@code quota} is left as it was.
   */
  static Start start(
      QuotaTally quota,
      Map<String, Admitted> kept,
      Map<String, Workload> byName,
      String head,
      Predicate<QuotaTally> fits,
      Instant now) {
    record Ending(Admitted entry, Optional<Instant> end) {}
    var endings = new ArrayList<Ending>();
    kept.forEach(
        (name, a) -> {
          if (!name.equals(head)) { // a grown head's own admission does not end before it starts
            endings.add(
                new Ending(
                    a,
                    Optional.ofNullable(byName.get(name)).flatMap(w -> endOf(w.spec(), a.at()))));
          }
        });
    // Known ends first, soonest first; those never known last.
    endings.sort(
        Comparator.comparing((Ending e) -> e.end().orElse(Instant.MAX), Comparator.naturalOrder()));
    // Ends never known sort last, so the first that makes the head fit decides.
    var released = quota.copy(); // a tally of its own: each release costs the entry's classes
    for (var e : endings) {
      released.remove(e.entry().queue(), e.entry().usage());
      if (fits.test(released)) {
        if (e.end().isEmpty()) {
          return new Start.Unknown();
        }
        var at = e.end().get();
        return new Start.At(at.isBefore(now) ? now : at);
      }
    }
    return new Start.Never();
  }

  /**
   * Whether {@code candidate}, were it admitted now, may pass a head that starts at {@code start}:
   * only if it gives its quota back by then.
   */
  static boolean mayPass(Start start, WorkloadSpec candidate, Instant now) {
    return switch (start) {
      case Start.Never n -> true;
      case Start.Unknown u -> true;
      case Start.At at -> endOf(candidate, now).map(e -> !e.isAfter(at.at())).orElse(false);
    };
  }
}
