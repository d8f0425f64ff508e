package dev.quartermaster.control.admission;

import static dev.quartermaster.control.admission.Cohorts.NOW;
import static dev.quartermaster.control.admission.Cohorts.queue;
import static dev.quartermaster.control.admission.Cohorts.scaled;
import static dev.quartermaster.control.admission.Cohorts.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.policy.AdmissionPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The admission decision, case by case. */
class AdmissionCycleTest {

  private static AdmissionCycle.Plan decide(
      List<Queue> queues, QuotaLedgerSpec ledger, List<Workload> workloads) {
    return AdmissionCycle.decide(
        CohortSnapshot.of(
            queues,
            ledger,
            workloads,
            Map.of("high", 100),
            new WorkloadFacts(Map.of(), Set.of(), Set.of(), Set.of()),
            d -> 1,
            NOW),
        AdmissionPolicy.DEFAULT);
  }

  /**
   * As {@link #decide}, with {@code stopped}: the evicted workloads none of whose tasks is left.
   */
  private static AdmissionCycle.Plan decide(
      List<Queue> queues, QuotaLedgerSpec ledger, List<Workload> workloads, Set<String> stopped) {
    return AdmissionCycle.decide(
        CohortSnapshot.of(
            queues,
            ledger,
            workloads,
            Map.of("high", 100),
            new WorkloadFacts(Map.of(), Set.of(), stopped, Set.of()),
            d -> 1,
            NOW),
        AdmissionPolicy.DEFAULT);
  }

  /**
   * Issue 43, item 7: two queues of quota {@code Integer.MAX_VALUE} made the cohort's sums wrap
   * negative, and nothing of the cohort was admitted again.
   */
  @Test
  void twoQueuesOfTheLargestQuotaAdmitAsAnyOther() {
    var queues =
        List.of(
            queue("a", Integer.MAX_VALUE, QueueOrdering.StrictFIFO, 1),
            queue("b", Integer.MAX_VALUE, QueueOrdering.StrictFIFO, 1));
    var plan =
        decide(
            queues, QuotaLedgerSpec.EMPTY, List.of(workload("x", "a", 4), workload("y", "b", 4)));
    assertThat(plan.admitted()).containsExactlyInAnyOrder("x", "y");
    assertThat(plan.statuses().get("a").used()).isEqualTo(Map.of("gpu", 4));
  }

  @Test
  void everyWorkloadThatFitsIsAdmittedInOneDecisionAcrossQueues() {
    var queues =
        List.of(
            queue("a", 8, QueueOrdering.StrictFIFO, 1), queue("b", 8, QueueOrdering.StrictFIFO, 1));
    var workloads = new ArrayList<Workload>();
    for (int i = 0; i < 8; i++) {
      workloads.add(workload("a" + i, "a", 2));
      workloads.add(workload("b" + i, "b", 2));
    }
    var plan = decide(queues, QuotaLedgerSpec.EMPTY, workloads);
    assertThat(plan.admitted()).hasSize(8); // 16 GPUs of quota, 2 each
    assertThat(plan.ledger().admitted().values().stream().filter(a -> a.queue().equals("a")))
        .hasSize(4);
    assertThat(CohortQuota.of(specs(queues), plan.ledger().admitted()).breach()).isEmpty();
    assertThat(plan.statuses().get("a").pending()).isEqualTo(4);
    assertThat(plan.statuses().get("a").used()).isEqualTo(Map.of("gpu", 8));
  }

  @Test
  void aHeadThatDoesNotFitBlocksAStrictQueueButNotABestEffortOne() {
    var big = workload("big", "q", 10);
    var small = workload("small", "q", 2);
    var strict =
        decide(
            List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1)),
            QuotaLedgerSpec.EMPTY,
            List.of(big, small));
    assertThat(strict.admitted()).isEmpty();
    var bestEffort =
        decide(
            List.of(queue("q", 8, QueueOrdering.BestEffortFIFO, 1)),
            QuotaLedgerSpec.EMPTY,
            List.of(big, small));
    assertThat(bestEffort.admitted()).containsExactly("small");
  }

  /**
   * Issue 44: in a BestEffortFIFO queue the blocked head reserves the quota that comes back soonest
   * (by the admitted workloads' deadlines); a smaller workload passes it only if it gives its quota
   * back before the head's start. Without the rule (the test above) all three small ones pass.
   */
  @Test
  void aBestEffortHeadIsPassedOnlyByWorkloadsThatEndBeforeItsStart() {
    var queues = List.of(queue("q", 6, QueueOrdering.BestEffortFIFO, 1));
    var a = withDeadline(workload("a", "q", 2), 30);
    var b = withDeadline(workload("b", "q", 2), 60);
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, List.of(a, b)).ledger();
    var head = workload("head", "q", 4);
    var slow = withDeadline(workload("slow", "q", 1), 90);
    var endless = workload("endless", "q", 1);
    var quick = withDeadline(workload("quick", "q", 1), 20);
    var plan = decide(queues, ledger, List.of(a, b, head, slow, endless, quick));
    // 2 GPUs free; head needs 4: once a gives its 2 back, at NOW + 30 s (start) + 30 s. Only quick
    // (NOW + 50 s) ends by then; without the rule slow and endless, older, would take the 2.
    assertThat(plan.admitted()).containsExactly("quick");
    assertThat(QueueBackfill.endOf(quick.spec(), NOW)).contains(NOW.plusSeconds(50));
  }

  /**
   * A head that waits for a workload without a deadline has no start to keep: it reserves nothing,
   * and the queue is BestEffortFIFO as before (else a queue without deadlines would be StrictFIFO).
   */
  @Test
  void aHeadWaitingOnAWorkloadWithoutADeadlineReservesNothing() {
    var queues = List.of(queue("q", 5, QueueOrdering.BestEffortFIFO, 1));
    var a = workload("a", "q", 4);
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, List.of(a)).ledger();
    var plan = decide(queues, ledger, List.of(a, workload("head", "q", 4), workload("x", "q", 1)));
    assertThat(plan.admitted()).containsExactly("x");
  }

  private static Workload withDeadline(Workload w, int seconds) {
    var g = w.spec().groups().getFirst();
    var group =
        new WorkerGroup(
            g.name(),
            g.replicas(),
            g.template().withActiveDeadlineSeconds(seconds),
            g.claimTemplates(),
            g.restartPolicy());
    return new Workload(w.metadata(), w.spec().withGroups(List.of(group)), w.status());
  }

  @Test
  void higherPriorityGoesFirstThenOlder() {
    var old = workload("old", "q", 6);
    var urgent = workload("urgent", "q", 6, Optional.of("high"));
    var plan =
        decide(
            List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1)),
            QuotaLedgerSpec.EMPTY,
            List.of(old, urgent));
    assertThat(plan.admitted()).containsExactly("urgent");
  }

  @Test
  void aWorkloadNamingAPriorityClassThatDoesNotExistWaits() {
    var w = workload("w", "q", 1, Optional.of("no-such"));
    var plan =
        decide(
            List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1)), QuotaLedgerSpec.EMPTY, List.of(w));
    assertThat(plan.admitted()).isEmpty();
  }

  /**
   * Two queues of one cohort both wanting more than their quota: what is lent is shared by weight.
   */
  @Test
  void borrowingIsSharedByWeightedDominantShare() {
    var queues =
        List.of(
            queue("a", 4, QueueOrdering.StrictFIFO, 1),
            queue("b", 4, QueueOrdering.StrictFIFO, 3),
            queue("idle", 8, QueueOrdering.StrictFIFO, 1));
    var workloads = new ArrayList<Workload>();
    for (int i = 0; i < 16; i++) {
      workloads.add(workload("a" + i, "a", 1));
      workloads.add(workload("b" + i, "b", 1));
    }
    var plan = decide(queues, QuotaLedgerSpec.EMPTY, workloads);
    var quota = CohortQuota.of(specs(queues), plan.ledger().admitted());
    assertThat(quota.used("a", "gpu") + quota.used("b", "gpu")).isEqualTo(16);
    // b weighs three times a: it ends with about three times a's dominant share.
    assertThat(quota.used("b", "gpu")).isEqualTo(12);
    assertThat(quota.used("a", "gpu")).isEqualTo(4);
  }

  @Test
  void aDeletedOrReCreatedWorkloadIsReleased() {
    var queues = List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1));
    var w = workload("w", "q", 4);
    var first = decide(queues, QuotaLedgerSpec.EMPTY, List.of(w));
    assertThat(first.admitted()).containsExactly("w");

    var gone = decide(queues, first.ledger(), List.of());
    assertThat(gone.released()).containsExactly("w");
    assertThat(gone.ledger().admitted()).isEmpty();

    var again = new Workload(w.metadata().withUid("uid-new"), w.spec(), null);
    var recreated = decide(queues, first.ledger(), List.of(again));
    assertThat(recreated.released()).containsExactly("w");
    assertThat(recreated.ledger().admitted().get("w").uid()).isEqualTo("uid-new");
  }

  @Test
  void aScaleDownIsReleasedAsItsTasksGoAndAScaleUpWaitsForRoom() {
    var queues = List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1));
    var w = scaled(workload("w", "q", 2), 2); // 4 GPUs
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, List.of(w)).ledger();

    var down = decide(queues, ledger, List.of(scaled(w, 1)));
    assertThat(down.ledger().admitted().get("w").usage()).isEqualTo(Map.of("gpu", 2));
    // While its second task still runs, the admission keeps it.
    var stillRunning =
        AdmissionCycle.decide(
            CohortSnapshot.of(
                queues,
                ledger,
                List.of(scaled(w, 1)),
                Map.of(),
                new WorkloadFacts(Map.of("w", Map.of("w", 2)), Set.of(), Set.of(), Set.of()),
                d -> 1,
                NOW),
            AdmissionPolicy.DEFAULT);
    assertThat(stillRunning.ledger().admitted().get("w").replicas()).isEqualTo(Map.of("w", 2));
    assertThat(stillRunning.changed()).isFalse();

    var upFits = decide(queues, ledger, List.of(scaled(w, 4)));
    assertThat(upFits.ledger().admitted().get("w").replicas()).isEqualTo(Map.of("w", 4));

    var upTooFar = decide(queues, ledger, List.of(scaled(w, 5)));
    assertThat(upTooFar.ledger().admitted().get("w")).isEqualTo(ledger.admitted().get("w"));
    assertThat(upTooFar.changed()).isFalse();
  }

  /**
   * A workload that grows is admitted again and keeps whom it evicted (sim seed 398: elastic,
   * scaled up after it had evicted wide, forgot it, and wide's reclaim evicted it back).
   */
  @Test
  void aWorkloadAdmittedAgainAtItsNewSizeKeepsWhomItEvicted() {
    var queues = List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1));
    var w = workload("w", "q", 2);
    var remembers =
        new dev.quartermaster.api.queue.Admitted(
            "uid-w",
            "q",
            Map.of("w", 1),
            Map.of("gpu", 2),
            0,
            NOW,
            Optional.empty(),
            List.of("uid-v"));
    var ledger = new QuotaLedgerSpec(List.of("q"), Map.of("w", remembers));

    var grown = decide(queues, ledger, List.of(scaled(w, 3)));

    assertThat(grown.ledger().admitted().get("w").replicas()).isEqualTo(Map.of("w", 3));
    assertThat(grown.ledger().admitted().get("w").preempted()).containsExactly("uid-v");
  }

  @Test
  void aFinishedJobsQuotaIsReleasedAndItIsNotAdmittedAgain() {
    var queues = List.of(queue("q", 4, QueueOrdering.StrictFIFO, 1));
    var done = workload("done", "q", 4);
    var next = workload("next", "q", 4);
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, List.of(done, next)).ledger();
    assertThat(ledger.admitted()).containsOnlyKeys("done");

    var after =
        AdmissionCycle.decide(
            CohortSnapshot.of(
                queues,
                ledger,
                List.of(done, next),
                Map.of(),
                new WorkloadFacts(Map.of(), Set.of("done"), Set.of(), Set.of()),
                d -> 1,
                NOW),
            AdmissionPolicy.DEFAULT);
    assertThat(after.released()).containsExactly("done");
    assertThat(after.admitted()).containsExactly("next");
    assertThat(after.statuses().get("q").pending()).isZero();
  }

  private static Queue borrowing(String name, int gpus) {
    return new Queue(
        ObjectMeta.named(name),
        new QueueSpec(
            Optional.of("c"), Map.of("gpu", gpus), Map.of(), Map.of(), 1, QueueOrdering.StrictFIFO),
        null);
  }

  /**
   * Within a queue a higher priority evicts the fewest, lowest, newest first; the victims' entries
   * keep counting until they have stopped, and then the preemptor (nominated) is admitted before
   * anyone else, remembering them.
   */
  @Test
  void aHigherPriorityEvictsTheFewestLowestAndIsAdmittedOnceTheyHaveStopped() {
    var queues = List.of(queue("q", 8, QueueOrdering.StrictFIFO, 1));
    var a = workload("a", "q", 4);
    var b = workload("b", "q", 2);
    var c = workload("c", "q", 2);
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, List.of(a, b, c)).ledger();
    assertThat(ledger.admitted()).containsOnlyKeys("a", "b", "c");
    var urgent = workload("urgent", "q", 4, Optional.of("high"));
    var other = workload("other", "q", 2);

    var chose = decide(queues, ledger, List.of(a, b, c, urgent, other));
    // a alone (4 GPUs) or b and c (2 + 2) would do: the fewest, a.
    assertThat(chose.evicted()).extracting(Preemption.Victim::name).containsExactly("a");
    assertThat(chose.admitted()).isEmpty();
    assertThat(chose.ledger().nominated()).containsOnlyKeys("urgent");
    assertThat(chose.ledger().admitted().get("a").eviction().get().by()).isEqualTo("urgent");
    // The victim still counts: Q1 holds with it in.
    assertThat(CohortQuota.of(specs(queues), chose.ledger().admitted()).breach()).isEmpty();

    var stillStopping = decide(queues, chose.ledger(), List.of(a, b, c, urgent, other));
    assertThat(stillStopping.changed()).isFalse(); // it waits for its victim, it chooses no more

    var stopped = decide(queues, chose.ledger(), List.of(a, b, c, urgent, other), Set.of("a"));
    assertThat(stopped.released()).containsExactly("a");
    assertThat(stopped.admitted()).containsExactly("urgent"); // before a, which waits again
    assertThat(stopped.ledger().nominated()).isEmpty();
    assertThat(stopped.ledger().admitted().get("urgent").preempted()).containsExactly("uid-a");
  }

  /**
   * Found by {@code ./qm bench preemption}: a victim released while another still stops must not be
   * admitted again with the quota it gave back (the preemptor would choose again, and again).
   */
  @Test
  void whatAPreemptorWaitsForIsHeldForIt() {
    var queues = List.of(queue("q", 8, QueueOrdering.BestEffortFIFO, 1));
    var a = workload("a", "q", 4);
    var b = workload("b", "q", 4);
    var urgent = workload("urgent", "q", 8, Optional.of("high"));
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, List.of(a, b)).ledger();
    var chose = decide(queues, ledger, List.of(a, b, urgent));
    assertThat(chose.evicted()).extracting(Preemption.Victim::name).containsExactly("a", "b");

    var aStopped = decide(queues, chose.ledger(), List.of(a, b, urgent), Set.of("a"));
    var aWaits = decide(queues, aStopped.ledger(), List.of(a, b, urgent));
    assertThat(aWaits.admitted()).as("a's 4 GPUs are held for urgent").isEmpty();
    assertThat(aWaits.evicted()).isEmpty();

    var bStopped = decide(queues, aWaits.ledger(), List.of(a, b, urgent), Set.of("b"));
    assertThat(bStopped.admitted()).containsExactly("urgent");
  }

  /**
   * Issue 44: queue a's quota lowered to 2 under the 8 it uses. What it admitted stays; nothing
   * more of gpu is admitted in the cohort (a's own 1-GPU job waits), a class not over quota is
   * admitted as before, and b, wanting its own nominal 4, takes it back by reclaim.
   */
  @Test
  void aQuotaLoweredUnderWhatIsAdmittedKeepsItAdmitsNoMoreOfThatClassAndIsReclaimed() {
    var queues =
        List.of(
            queue("a", 2, QueueOrdering.BestEffortFIFO, 1),
            queue("b", 4, QueueOrdering.BestEffortFIFO, 1));
    var x = workload("x", "a", 8);
    var ledger =
        new QuotaLedgerSpec(
            List.of("a", "b"),
            Map.of(
                "x",
                new dev.quartermaster.api.queue.Admitted(
                    "uid-x", "a", Map.of("w", 1), Map.of("gpu", 8), 0, NOW)));
    var small = workload("small", "a", 1);
    var fpga = workload("fpga", "b", 1, Optional.empty(), "fpga");

    var plan = decide(queues, ledger, List.of(x, small, fpga));
    assertThat(plan.ledger().admitted()).containsKeys("x", "fpga").doesNotContainKey("small");
    assertThat(plan.evicted()).isEmpty();

    var wants = workload("wants", "b", 4);
    var reclaim = decide(queues, plan.ledger(), List.of(x, small, fpga, wants));
    assertThat(reclaim.evicted())
        .extracting(Preemption.Victim::name, Preemption.Victim::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "x", dev.quartermaster.api.queue.EvictionReason.Reclaimed));
  }

  /** Among victims of one priority, the most recently admitted go first. */
  @Test
  void theNewestAdmittedGoFirst() {
    var queues = List.of(queue("q", 4, QueueOrdering.StrictFIFO, 1));
    var early =
        new dev.quartermaster.api.queue.Admitted(
            "uid-x", "q", Map.of("w", 1), Map.of("gpu", 2), 0, NOW);
    var late =
        new dev.quartermaster.api.queue.Admitted(
            "uid-y", "q", Map.of("w", 1), Map.of("gpu", 2), 0, NOW.plusSeconds(60));
    var x = workload("x", "q", 2);
    var y = workload("y", "q", 2);
    var ledger = new QuotaLedgerSpec(List.of("q"), Map.of("x", early, "y", late));
    var plan =
        decide(queues, ledger, List.of(x, y, workload("urgent", "q", 2, Optional.of("high"))));
    assertThat(plan.evicted()).extracting(Preemption.Victim::name).containsExactly("y");
  }

  @Test
  void equalOrLowerPriorityNeverEvictsWithinAQueue() {
    var queues = List.of(queue("q", 4, QueueOrdering.StrictFIFO, 1));
    var a = workload("a", "q", 4);
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, List.of(a)).ledger();
    var plan = decide(queues, ledger, List.of(a, workload("b", "q", 4)));
    assertThat(plan.evicted()).isEmpty();
    assertThat(plan.changed()).isFalse();
  }

  /**
   * A queue within its nominal quota takes back what another borrowed, whatever the borrower's
   * priority; a queue that would borrow itself reclaims nothing.
   */
  @Test
  void aQueueReclaimsWhatIsBorrowedOnlyWithinItsNominalQuota() {
    var queues = List.of(borrowing("lender", 4), borrowing("borrower", 4));
    var backfill = new ArrayList<Workload>();
    for (int i = 0; i < 4; i++) {
      backfill.add(workload("fill" + i, "borrower", 2, Optional.of("high")));
    }
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, backfill).ledger();
    assertThat(ledger.admitted()).hasSize(4); // 8 GPUs: 4 of its own, 4 borrowed

    var all = new ArrayList<>(backfill);
    all.add(workload("mine", "lender", 4));
    var plan = decide(queues, ledger, all);
    assertThat(plan.evicted())
        .extracting(Preemption.Victim::reason)
        .containsOnly(dev.quartermaster.api.queue.EvictionReason.Reclaimed);
    assertThat(plan.evicted()).hasSize(2);

    var tooBig = new ArrayList<>(backfill);
    tooBig.add(workload("greedy", "lender", 6)); // 6 > its nominal 4: it would borrow
    assertThat(decide(queues, ledger, tooBig).evicted()).isEmpty();
  }

  /**
   * Found by the simulation (L3): the urgent job is within its queue's nominal quota only once a
   * lower priority of its own queue goes, and only then may it reclaim what another queue borrows.
   * Both are chosen, in one decision.
   */
  @Test
  void aPreemptionWithinTheQueueCanMakeAReclaimRightful() {
    var queues = List.of(borrowing("train", 5), borrowing("research", 4));
    var elastic = workload("elastic", "train", 3);
    var wide = workload("wide", "research", 6);
    var ledger = decide(queues, QuotaLedgerSpec.EMPTY, List.of(elastic, wide)).ledger();
    assertThat(ledger.admitted()).containsOnlyKeys("elastic", "wide"); // wide borrows 2 of train's

    var ring = workload("ring", "train", 4, Optional.of("high"));
    var plan = decide(queues, ledger, List.of(elastic, wide, ring));

    assertThat(plan.evicted())
        .extracting(v -> v.name() + " " + v.reason())
        .containsExactly("elastic Preempted", "wide Reclaimed");
  }

  /** The anti-cycle rule: a workload never evicts the one that evicted it while that one stays. */
  @Test
  void aPreemptedWorkloadNeverEvictsItsPreemptorBack() {
    var queues = List.of(borrowing("lender", 4), borrowing("borrower", 4));
    var p = workload("p", "lender", 4);
    var v = workload("v", "borrower", 4);
    var admittedP =
        new dev.quartermaster.api.queue.Admitted(
            "uid-p",
            "borrower",
            Map.of("w", 1),
            Map.of("gpu", 4),
            0,
            NOW,
            Optional.empty(),
            List.of("uid-v"));
    var own =
        new dev.quartermaster.api.queue.Admitted(
            "uid-o", "borrower", Map.of("w", 1), Map.of("gpu", 4), 0, NOW);
    // p runs in borrower (moved there after it was admitted: say), borrowing 4; v fits lender.
    var ledger =
        new QuotaLedgerSpec(List.of("borrower", "lender"), Map.of("p", admittedP, "o", own));
    var pInBorrower =
        new Workload(p.metadata(), p.spec().inQueue("borrower", Optional.empty()), null);
    var o =
        new Workload(
            p.metadata().withName("o").withUid("uid-o"),
            p.spec().inQueue("borrower", Optional.empty()),
            null);
    var vInLender = new Workload(v.metadata(), v.spec().inQueue("lender", Optional.empty()), null);
    var plan = decide(queues, ledger, List.of(pInBorrower, o, vInLender));
    // v would reclaim from borrower, but not p, which evicted it: o is the victim instead.
    assertThat(plan.evicted()).extracting(Preemption.Victim::name).containsExactly("o");
  }

  /**
   * Issue 43: with 10,000 queues in one cohort a decision cost the square of the queues (each
   * workload tried summed the whole cohort again, each queue's status laid the cohort's lending
   * again, each pick compared every queue), and admission stalled for minutes. What a decision
   * looks at now grows linearly: four times the queues (and workloads), at most about four times
   * the visits, and a few visits per queue. Counted, not timed.
   */
  @Test
  void aDecisionLooksAtEachQueueAFewTimesNotOncePerWorkload() {
    long small = visitsOfADecision(500);
    long large = visitsOfADecision(2_000);
    assertThat(large).as("visits for 2,000 queues vs %d for 500", small).isLessThan(5 * small);
    assertThat(large).as("visits per queue").isLessThan(30L * 2_000);
  }

  /**
   * {@code queues} queues of 1 GPU in one cohort; the first half each get 3 one-GPU workloads (2
   * admitted, the second on what the idle half lends; the third does not fit and tries to preempt),
   * and a ledger already holds one queue's admission, so every part of the decision runs:
   * borrowing, lending laid on lenders, blocked workloads, preemption.
   */
  private long visitsOfADecision(int queues) {
    var qs = new ArrayList<Queue>();
    var workloads = new ArrayList<Workload>();
    for (int i = 0; i < queues; i++) {
      var name = String.format("q%05d", i);
      qs.add(borrowing(name, 1));
      if (i < queues / 2) {
        for (int k = 0; k < 3; k++) {
          workloads.add(workload(name + "-" + k, name, 1));
        }
      }
    }
    var plan = decide(qs, QuotaLedgerSpec.EMPTY, workloads);
    assertThat(plan.admitted()).hasSize(queues);
    var again = decide(qs, plan.ledger(), workloads);
    assertThat(again.changed()).isFalse();
    assertThat(again.statuses().get("q00000").borrowed()).isEqualTo(Map.of("gpu", 1));
    assertThat(again.statuses().get(String.format("q%05d", queues / 2)).lent())
        .isEqualTo(Map.of("gpu", 1));
    return plan.visits() + again.visits();
  }

  private static Map<String, QueueSpec> specs(List<Queue> queues) {
    var out = new HashMap<String, QueueSpec>();
    queues.forEach(q -> out.put(q.metadata().name(), q.spec()));
    return out;
  }

  /**
   * Issue 46, item 5: a queue whose quota counts MIG compute slices ({@code mig-compute-slices: 7},
   * one H200's worth, any profile) admits slices of any profile while their compute slices fit —
   * two 3g (6) — and keeps a 2g waiting (6 + 2 > 7), though a quota per profile class would not see
   * it.
   */
  @Test
  void aQuotaOfComputeSlicesCountsEverySliceByItsSize() {
    var queue =
        new Queue(
            ObjectMeta.named("infer"),
            new QueueSpec(
                Optional.of("c"),
                Map.of("mig-compute-slices", 7),
                Map.of(),
                Map.of(),
                1,
                QueueOrdering.BestEffortFIFO),
            null);
    var a = workload("a", "infer", 1, Optional.empty(), "mig-3g.71gb");
    var b = workload("b", "infer", 1, Optional.empty(), "mig-3g.71gb");
    var c = workload("c", "infer", 1, Optional.empty(), "mig-2g.35gb");
    java.util.function.ToIntFunction<String> charge =
        k -> k.equals("mig-3g.71gb") ? 3 : k.equals("mig-2g.35gb") ? 2 : 0;
    java.util.function.Function<java.util.function.ToIntFunction<String>, AdmissionCycle.Plan>
        decide =
            priced ->
                AdmissionCycle.decide(
                    CohortSnapshot.of(
                        List.of(queue),
                        QuotaLedgerSpec.EMPTY,
                        List.of(a, b, c),
                        Map.of(),
                        new WorkloadFacts(Map.of(), Set.of(), Set.of(), Set.of()),
                        d -> 1,
                        priced,
                        NOW),
                    AdmissionPolicy.DEFAULT);
    var plan = decide.apply(charge);
    assertThat(plan.admitted()).containsExactlyInAnyOrder("a", "b");
    assertThat(plan.ledger().admitted().get("a").usage())
        .isEqualTo(Map.of("mig-3g.71gb", 1, "mig-compute-slices", 3));
    assertThat(decide.apply(k -> 0).admitted())
        .as("a demand blind to compute slices admits all three: 8 sevenths on a quota of 7")
        .containsExactlyInAnyOrder("a", "b", "c");
  }
}
