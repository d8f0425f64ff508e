package dev.quartermaster.control.admission;

import static dev.quartermaster.control.admission.Cohorts.NOW;
import static dev.quartermaster.control.admission.Cohorts.queue;
import static dev.quartermaster.control.admission.Cohorts.snapshot;
import static dev.quartermaster.control.admission.Cohorts.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.policy.LeastWorkLost;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A decision's fourth step alone: the blocked make room, one preemption at a time per queue. */
class PreemptBlockedTest {
  private static final List<dev.quartermaster.api.queue.Queue> QUEUES =
      List.of(queue("q", 4, QueueOrdering.StrictFIFO, 1));

  private static Admitted low(String name) {
    return new Admitted("uid-" + name, "q", Map.of("w", 1), Map.of("gpu", 2), 0, NOW);
  }

  private static PreemptBlocked run(Map<String, Admitted> admitted, Workload blocked) {
    var all = new java.util.ArrayList<Workload>(List.of(blocked));
    admitted.keySet().forEach(n -> all.add(workload(n, "q", 2)));
    var s = snapshot(QUEUES, new QuotaLedgerSpec(List.of("q"), admitted), all, WorkloadFacts.NONE);
    var next = new NextLedger(s, CarryOver.of(s));
    var held = HeldForPreemptors.of(s, next);
    return PreemptBlocked.run(
        s,
        next,
        Map.of("q", List.of(blocked)),
        held,
        QueueOrder.of(s.priorities()),
        new LeastWorkLost());
  }

  @Test
  void aBlockedWorkloadOfHigherPriorityEvictsTheFewestItNeeds() {
    var high = workload("high", "q", 2, Optional.of("high"));
    var plan = run(Map.of("a", low("a"), "b", low("b")), high);
    assertThat(plan.evicted()).hasSize(1);
    assertThat(plan.evicted().getFirst().entry().eviction().get().by()).isEqualTo("high");
  }

  @Test
  void whileItsVictimsStopItChoosesNoMore() {
    var high = workload("high", "q", 4, Optional.of("high"));
    var stopping =
        low("a").evictedBy(new Eviction("high", "uid-high", EvictionReason.Preempted, NOW));
    var plan = run(Map.of("a", stopping, "b", low("b")), high);
    assertThat(plan.evicted()).isEmpty();
  }
}
