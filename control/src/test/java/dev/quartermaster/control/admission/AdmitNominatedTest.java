package dev.quartermaster.control.admission;

import static dev.quartermaster.control.admission.Cohorts.NOW;
import static dev.quartermaster.control.admission.Cohorts.queue;
import static dev.quartermaster.control.admission.Cohorts.snapshot;
import static dev.quartermaster.control.admission.Cohorts.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.Workload;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A decision's second step alone: a preemptor is admitted first once its room is back. */
class AdmitNominatedTest {
  @Test
  void aNominatedWorkloadThatFitsIsAdmittedKeepingItsVictimsAndOneThatDoesNotWaits() {
    var queues = List.of(queue("q", 4, QueueOrdering.StrictFIFO, 1));
    var fits = workload("fits", "q", 2);
    var tooBig = workload("big", "q", 4);
    var other = workload("other", "q", 2);
    var holder = new Admitted("uid-holder", "q", Map.of("w", 1), Map.of("gpu", 2), 0, NOW);
    var ledger =
        new QuotaLedgerSpec(
            List.of("q"),
            Map.of("holder", holder),
            Map.of(
                "fits", new Nomination("uid-fits", "q", 0, List.of("uid-v"), NOW),
                "big", new Nomination("uid-big", "q", 0, List.of("uid-w"), NOW)));
    var s =
        snapshot(
            queues,
            ledger,
            List.of(fits, tooBig, other, workload("holder", "q", 2)),
            WorkloadFacts.NONE);
    var carried = CarryOver.of(s);
    var next = new NextLedger(s, carried);
    var pending = new HashMap<String, ArrayDeque<Workload>>();
    pending.put("q", new ArrayDeque<>(List.of(tooBig, fits, other)));

    AdmitNominated.run(s, next, pending, QueueOrder.of(Map.of()));

    assertThat(next.admitted).containsExactly("fits");
    assertThat(next.kept.get("fits").preempted()).containsExactly("uid-v");
    assertThat(next.nominated).containsOnlyKeys("big");
    assertThat(pending.get("q")).containsExactly(tooBig, other);
  }
}
