package dev.quartermaster.control.admission;

import static dev.quartermaster.control.admission.Cohorts.NOW;
import static dev.quartermaster.control.admission.Cohorts.queue;
import static dev.quartermaster.control.admission.Cohorts.scaled;
import static dev.quartermaster.control.admission.Cohorts.snapshot;
import static dev.quartermaster.control.admission.Cohorts.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.Workload;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A decision's first step alone: what of the ledger read is carried over, and how. */
class CarryOverTest {
  private static final List<dev.quartermaster.api.queue.Queue> QUEUES =
      List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1));

  private static Admitted entry(Workload w, int replicas) {
    return new Admitted(
        w.metadata().uid(), "q", Map.of("w", replicas), Map.of("gpu", 2 * replicas), 0, NOW);
  }

  @Test
  void whatIsGoneOrFinishedIsReleasedAndAStoppedEvictionComesBack() {
    var kept = workload("kept", "q", 2);
    var finished = workload("finished", "q", 2);
    var stopping = workload("stopping", "q", 2);
    var stopped = workload("stopped", "q", 2);
    var evicted = new Eviction("p", "uid-p", EvictionReason.Preempted, NOW);
    var ledger =
        new QuotaLedgerSpec(
            List.of("q"),
            Map.of(
                "kept", entry(kept, 1),
                "finished", entry(finished, 1),
                "gone", entry(workload("gone", "q", 2), 1),
                "stopping", entry(stopping, 1).evictedBy(evicted),
                "stopped", entry(stopped, 1).evictedBy(evicted)));
    var facts = new WorkloadFacts(Map.of(), Set.of("finished"), Set.of("stopped"), Set.of());

    var carried =
        CarryOver.of(snapshot(QUEUES, ledger, List.of(kept, finished, stopping, stopped), facts));

    assertThat(carried.kept()).containsOnlyKeys("kept", "stopping");
    assertThat(carried.released()).containsExactlyInAnyOrder("finished", "gone", "stopped");
    assertThat(carried.back()).containsExactly("stopped");
    assertThat(carried.grown()).isEmpty();
  }

  @Test
  void aScaleDownShrinksToWhatItsLiveTasksTakeAndAScaleUpIsMarkedGrown() {
    var down = workload("down", "q", 2);
    var up = workload("up", "q", 2);
    var ledger =
        new QuotaLedgerSpec(List.of("q"), Map.of("down", entry(down, 3), "up", entry(up, 1)));
    var facts = new WorkloadFacts(Map.of("down", Map.of("w", 2)), Set.of(), Set.of(), Set.of());

    var carried =
        CarryOver.of(snapshot(QUEUES, ledger, List.of(scaled(down, 1), scaled(up, 2)), facts));

    assertThat(carried.kept().get("down").replicas()).isEqualTo(Map.of("w", 2));
    assertThat(carried.kept().get("down").usage()).isEqualTo(Map.of("gpu", 4));
    assertThat(carried.kept().get("up")).isEqualTo(entry(up, 1));
    assertThat(carried.grown()).containsExactly("up");
  }

  @Test
  void aNominationIsKeptWhileItsWorkloadWaitsAsItWas() {
    var waits = workload("waits", "q", 2);
    var recreated = workload("recreated", "q", 2);
    var ledger =
        new QuotaLedgerSpec(
            List.of("q"),
            Map.of(),
            Map.of(
                "waits", new Nomination("uid-waits", "q", 0, List.of("v"), NOW),
                "recreated", new Nomination("uid-old", "q", 0, List.of("v"), NOW)));

    var carried =
        CarryOver.of(snapshot(QUEUES, ledger, List.of(waits, recreated), WorkloadFacts.NONE));

    assertThat(carried.nominated()).containsOnlyKeys("waits");
  }
}
