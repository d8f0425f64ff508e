package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quartermaster.control.admission.Requeueing;
import org.junit.jupiter.api.Test;

/**
 * The naive admitter of issue 33 in the whole-cluster simulation: the real control plane (two
 * replicas, fail-over, the quota-change fault and all) on a store without the quota guard, so that
 * the quota is checked only by the admission controller, on what its cache showed, outside the
 * write's transaction. Caught by Q1 on a seed the real system passes: an admission decided on the
 * old quota lands after an operator's change under it.
 */
class QueueNaiveVariantsTest {
  private static final int BOUND = 100;

  /**
   * Per-pod preemption ({@link PerPodPreemption}): the urgent job gets its GPUs from part of a
   * lower-priority job, whose gang is left running short. Caught by Q2's whole-workload half.
   */
  @Test
  void perPodPreemptionIsCaughtByQ2() {
    Campaign.quiet();
    var variant = Variant.REAL.withoutQuotaGuard().withAlongside(PerPodPreemption::start);
    int seed = GangNaiveVariantsTest.firstCaught(variant, "Q2", BOUND);
    System.out.println("naive variant 'per-pod preemption' caught by Q2 at seed " + seed);
    assertTrue(seed > 0, "per-pod preemption went unnoticed by Q2 for " + BOUND + " seeds");
  }

  /**
   * Issue 44: a quota lowered under what is admitted is taken, and Q1 holds in its second form
   * (what was admitted before only goes down). The naive reading ({@link GrandfatheredQuota}) hands
   * what finishes meanwhile to the next waiting workloads instead. Caught by Q1 on a seed where the
   * real system passes and the store without the guard, without the helper, passes Q1 too: the
   * catch is the helper's.
   */
  @Test
  void aGrandfatheredQuotaAfterAShrinkIsCaughtByQ1() {
    Campaign.quiet();
    java.util.function.Predicate<String> q1 = line -> line.startsWith("Q1");
    var naive = Variant.REAL.withoutQuotaGuard().withAlongside(GrandfatheredQuota::start);
    int caught = -1;
    for (int seed = 1; seed <= BOUND && caught < 0; seed++) {
      if (new SeedRun(seed, SeedRun.STEPS, naive, q1).run() instanceof SeedRun.Outcome.Violated v
          && v.violations().stream().allMatch(q1)
          && new SeedRun(seed, SeedRun.STEPS, Variant.REAL.withoutQuotaGuard(), q1).run()
              instanceof SeedRun.Outcome.Passed
          && SeedRun.run(seed, SeedRun.STEPS) instanceof SeedRun.Outcome.Passed) {
        System.out.println(Campaign.describe(v));
        caught = seed;
      }
    }
    System.out.println("naive variant 'grandfathered quota' caught by Q1 at seed " + caught);
    assertTrue(caught > 0, "the grandfathered quota went unnoticed by Q1 for " + BOUND + " seeds");
  }

  /**
   * Before issue 44: an admitted workload holds its quota however long it cannot run (no start
   * timeout), and an evicted one may be admitted again at once (no backoff).
   */
  static Variant noTimeoutNoBackoff() {
    return Variant.planeOptions(o -> o.withRequeueing(new Requeueing(false, false)));
  }

  @Test
  void anAdmissionThatNeverRunsKeepingItsQuotaIsCaughtByQ3() {
    Campaign.quiet();
    int seed = GangNaiveVariantsTest.firstCaught(noTimeoutNoBackoff(), "Q3", BOUND);
    System.out.println("naive variant 'no start timeout' caught by Q3 at seed " + seed);
    assertTrue(seed > 0, "no start timeout went unnoticed by Q3 for " + BOUND + " seeds");
  }

  /**
   * A start timeout without a backoff: the workload that gave its quota back is admitted again at
   * once (nothing else took the quota in the meantime) and holds it idle again, round after round.
   */
  @Test
  void anEvictedWorkloadAdmittedAgainAtOnceIsCaughtByQ4() {
    Campaign.quiet();
    var variant = Variant.planeOptions(o -> o.withRequeueing(new Requeueing(true, false)));
    int seed = GangNaiveVariantsTest.firstCaught(variant, "Q4", BOUND);
    System.out.println("naive variant 'no requeue backoff' caught by Q4 at seed " + seed);
    assertTrue(seed > 0, "no requeue backoff went unnoticed by Q4 for " + BOUND + " seeds");
  }

  /**
   * Before issue 44's last item: a queue's {@code overQuota: Evict} is taken and ignored, as every
   * lowered quota was waited out; the admission controller never evicts for it.
   */
  @Test
  void anEvictQueueLeftOverItsQuotaIsCaughtByQ5() {
    Campaign.quiet();
    var variant = Variant.planeOptions(o -> o.withRequeueing(new Requeueing(true, true, false)));
    int seed = GangNaiveVariantsTest.firstCaught(variant, "Q5", BOUND);
    System.out.println("naive variant 'overQuota: Evict ignored' caught by Q5 at seed " + seed);
    assertTrue(seed > 0, "overQuota: Evict ignored went unnoticed by Q5 for " + BOUND + " seeds");
  }

  /**
   * Issue 50: a pass over a cohort only marks starts unless something else changed since its last
   * whole decision. The naive reading ({@link Requeueing#wholeOnlyAtRechecks}) counts no change, so
   * a pass decides whole only when a start timeout or backoff comes due: what arrives or frees room
   * in between waits for good. Caught by L1: not converged after the faults stop.
   */
  @Test
  void aPassThatOnlyMarksWhereItShouldDecideIsCaughtByL1() {
    Campaign.quiet();
    var variant =
        Variant.planeOptions(o -> o.withRequeueing(Requeueing.DEFAULT.wholeOnlyAtRechecks()));
    int seed = GangNaiveVariantsTest.firstCaught(variant, "L1", BOUND);
    System.out.println("naive variant 'passes that only mark' caught by L1 at seed " + seed);
    assertTrue(seed > 0, "passes that only mark went unnoticed by L1 for " + BOUND + " seeds");
  }

  @Test
  void aQuotaCheckOutsideTheAdmissionTransactionIsCaughtByQ1() {
    Campaign.quiet();
    int seed = GangNaiveVariantsTest.firstCaught(Variant.REAL.withoutQuotaGuard(), "Q1", BOUND);
    System.out.println(
        "naive variant 'quota check outside the transaction' caught by Q1 at seed " + seed);
    assertTrue(seed > 0, "the naive admitter went unnoticed by Q1 for " + BOUND + " seeds");
  }
}
