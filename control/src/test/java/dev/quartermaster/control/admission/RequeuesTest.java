package dev.quartermaster.control.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.Requeue;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.admission.policy.AdmissionPolicy;
import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 44 item 5: an evicted workload (timed out, or a preempted victim) is released with a
 * backoff record, doubling with each eviction in a row (10 s to 5 min), and not admitted again
 * before its backoff is over on the controller's clock; the record goes once it has run.
 */
class RequeuesTest {
  private final DeterministicEnv env = new DeterministicEnv(44);
  private final Requeues requeues = new Requeues(env);
  private static final Workload W =
      new Workload(ObjectMeta.named("v").withUid("uid-v"), WorkloadSpec.EMPTY, null);

  private Admitted evicted(EvictionReason reason) {
    return new Admitted("uid-v", "team", Map.of("w", 1), Map.of("gpu", 1), 0, env.now())
        .evictedBy(new Eviction(reason.hasPreemptor() ? "p" : "", "", reason, env.now()));
  }

  private static QuotaLedgerSpec ledger(Map<String, Admitted> admitted, Map<String, Requeue> r) {
    return new QuotaLedgerSpec(List.of("team"), admitted, Map.of(), r);
  }

  @Test
  void eachEvictionInARowDoublesTheBackoffAndRunningEndsIt() {
    var before = ledger(Map.of("v", evicted(EvictionReason.Preempted)), Map.of());
    var first =
        requeues.next(before, ledger(Map.of(), Map.of()), List.of("v"), Map.of("v", W), Set.of());
    assertThat(first.get("v").count()).isEqualTo(1);
    assertThat(first.get("v").delaySeconds()).isEqualTo(10);
    assertThat(first.get("v").reason()).isEqualTo(EvictionReason.Preempted);

    var again = ledger(Map.of("v", evicted(EvictionReason.StartTimeout)), first);
    var second =
        requeues.next(again, ledger(Map.of(), Map.of()), List.of("v"), Map.of("v", W), Set.of());
    assertThat(second.get("v").count()).isEqualTo(2);
    assertThat(second.get("v").delaySeconds()).isEqualTo(20);

    var ran =
        new Admitted("uid-v", "team", Map.of("w", 1), Map.of("gpu", 1), 0, env.now()).markStarted();
    assertThat(
            requeues.next(
                ledger(Map.of("v", ran), second),
                ledger(Map.of("v", ran), Map.of()),
                List.of(),
                Map.of("v", W),
                Set.of()))
        .as("it ran: the count starts again")
        .isEmpty();
  }

  @Test
  void aWorkloadWaitsOutItsBackoffOnTheControllersClock() {
    var r = Map.of("v", new Requeue("uid-v", 2, EvictionReason.StartTimeout, env.now(), 20));
    var now = requeues.waiting(r, Map.of("v", W));
    assertThat(now.backingOff()).containsExactly("v");
    assertThat(now.recheck()).contains(Duration.ofSeconds(20));
    env.advance(Duration.ofSeconds(20));
    assertThat(requeues.waiting(r, Map.of("v", W)).backingOff()).isEmpty();
  }

  /** Pending, but neither admitted nor preempting while its backoff runs. */
  @Test
  void theAdmissionDecisionPassesOverAWorkloadThatBacksOff() {
    var queue =
        new dev.quartermaster.api.queue.Queue(
            ObjectMeta.named("team"),
            new dev.quartermaster.api.queue.QueueSpec(
                java.util.Optional.of("c"),
                Map.of("gpu", 4),
                Map.of(),
                Map.of(),
                1,
                dev.quartermaster.api.queue.QueueOrdering.StrictFIFO),
            null);
    var claim =
        new dev.quartermaster.api.workload.ClaimTemplate(
            "gpu",
            new dev.quartermaster.api.claim.ResourceClaimSpec(
                List.of(new dev.quartermaster.api.claim.DeviceRequest("gpu", "gpu", 1, List.of())),
                java.util.Optional.empty()));
    var group =
        new dev.quartermaster.api.workload.WorkerGroup(
            "w",
            1,
            dev.quartermaster.api.workload.TaskTemplate.EMPTY,
            List.of(claim),
            dev.quartermaster.api.workload.RestartPolicy.OnFailure);
    var w =
        new Workload(
            ObjectMeta.named("v").withUid("uid-v"),
            new WorkloadSpec(List.of(group), java.util.Optional.empty())
                .inQueue("team", java.util.Optional.empty()),
            null);
    var backingOff =
        AdmissionCycle.decide(
            CohortSnapshot.of(
                List.of(queue),
                QuotaLedgerSpec.EMPTY,
                List.of(w),
                Map.of(),
                new WorkloadFacts(Map.of(), Set.of(), Set.of(), Set.of("v")),
                d -> 1,
                env.now()),
            AdmissionPolicy.DEFAULT);
    assertThat(backingOff.admitted()).isEmpty();
    assertThat(backingOff.statuses().get("team").pending())
        .as("still counted pending")
        .isEqualTo(1);
    var over =
        AdmissionCycle.decide(
            CohortSnapshot.of(
                List.of(queue),
                QuotaLedgerSpec.EMPTY,
                List.of(w),
                Map.of(),
                new WorkloadFacts(Map.of(), Set.of(), Set.of(), Set.of()),
                d -> 1,
                env.now()),
            AdmissionPolicy.DEFAULT);
    assertThat(over.admitted()).containsExactly("v");
  }
}
