package dev.quartermaster.bench;

import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.ControllerMetrics;
import dev.quartermaster.control.cluster.ReconcileOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/** Counts each controller's reconciles and the wall time they took, from now on. */
final class ReconcileCensus implements ControllerMetrics {
  private record Tally(LongAdder count, LongAdder nanos) {}

  private final Map<String, Tally> tallies = new ConcurrentHashMap<>();

  static ReconcileCensus observe(List<ControlLoop> loops) {
    var census = new ReconcileCensus();
    loops.forEach(l -> l.observeWith(census));
    return census;
  }

  @Override
  public void reconciled(String controller, Duration took, ReconcileOutcome outcome) {
    var t = tallies.computeIfAbsent(controller, c -> new Tally(new LongAdder(), new LongAdder()));
    t.count().increment();
    t.nanos().add(took.toNanos());
  }

  /**
   * Per {@code per} (e.g. per task): each controller's reconciles and their wall time, busiest
   * first.
   */
  String perTask(int per) {
    return tallies.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue().nanos().sum(), a.getValue().nanos().sum()))
        .map(
            e ->
                String.format(
                    "%s %.1f (%.2f ms)",
                    e.getKey(),
                    e.getValue().count().sum() / (double) per,
                    e.getValue().nanos().sum() / 1e6 / per))
        .collect(Collectors.joining(", "));
  }
}
