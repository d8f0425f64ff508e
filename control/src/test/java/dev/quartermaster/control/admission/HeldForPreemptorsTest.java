package dev.quartermaster.control.admission;

import static dev.quartermaster.control.admission.Cohorts.NOW;
import static dev.quartermaster.control.admission.Cohorts.queue;
import static dev.quartermaster.control.admission.Cohorts.snapshot;
import static dev.quartermaster.control.admission.Cohorts.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a waiting preemptor holds: its demand less what its victims still stopping use, so nobody
 * else takes the room it preempted for.
 */
class HeldForPreemptorsTest {
  @Test
  void aPreemptorHoldsWhatItsStoppingVictimsDoNotCoverAlready() {
    var queues = List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1));
    var victim = workload("victim", "q", 2);
    var preemptor = workload("p", "q", 6);
    var evicted =
        new Admitted("uid-victim", "q", Map.of("w", 1), Map.of("gpu", 2), 0, NOW)
            .evictedBy(new Eviction("p", "uid-p", EvictionReason.Preempted, NOW));
    var ledger =
        new QuotaLedgerSpec(
            List.of("q"),
            Map.of("victim", evicted),
            Map.of("p", new Nomination("uid-p", "q", 5, List.of("uid-victim"), NOW)));
    var s = snapshot(queues, ledger, List.of(victim, preemptor), WorkloadFacts.NONE);
    var next = new NextLedger(s, CarryOver.of(s));

    var held = HeldForPreemptors.of(s, next);

    assertThat(held.stoppingFor()).isEqualTo(Map.of("uid-p", Map.of("gpu", 2L)));
    assertThat(next.quota.used("q", "gpu")).as("the victim still counts").isEqualTo(2);
    assertThat(held.withHeld().used("q", "gpu")).as("and 6 - 2 more are held").isEqualTo(6);
  }
}
