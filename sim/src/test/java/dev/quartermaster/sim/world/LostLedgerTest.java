package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quartermaster.agent.checkpoint.LostLedger;
import org.junit.jupiter.api.Test;

/**
 * Issue 43 item 17 in the whole cluster: a killed agent's journal and mark are deleted with it. The
 * real agent refuses to start until an operator accepts the loss; a naive agent that starts from
 * what is left ({@link LostLedger#ACCEPT} without being told) has forgotten claims it acknowledged
 * as prepared, which I6 catches on a seed the real system passes.
 */
class LostLedgerTest {
  private static final int BOUND = 200;

  @Test
  void anAgentStartingFromALostLedgerIsCaughtByI6() {
    Campaign.quiet();
    int seed =
        GangNaiveVariantsTest.firstCaught(Variant.lostLedger(LostLedger.ACCEPT), "I6", BOUND);
    System.out.println("naive variant 'start from a lost ledger' caught by I6 at seed " + seed);
    assertTrue(
        seed > 0,
        "an agent starting from a lost ledger went unnoticed by I6 for " + BOUND + " seeds");
  }

  /**
   * Campaign seed 1128: node-1's journal is deleted, and at its restart the cross-check's list of
   * claims fails (5% of calls do). An agent that takes that for "nothing prepared here" starts from
   * the ledger that lost them; the real one does not start until it can ask, and then refuses. The
   * failing list is made sure ({@link ClaimListFailsEveryOtherStart}) rather than left to a draw
   * that any change to the run's timing moves to another seed.
   */
  @Test
  void anAgentSkippingTheCrossCheckWhenTheServerFailsIsCaughtByI6() {
    Campaign.quiet();
    java.util.function.Predicate<String> i6 = line -> line.startsWith("I6");
    for (int seed = 1; seed <= BOUND; seed++) {
      var failing = ClaimListFailsEveryOtherStart.views();
      var naive = Variant.agentView(api -> new ClaimListFailureSeenEmpty(failing.apply(api)));
      if (new SeedRun(seed, SeedRun.STEPS, naive, i6).run() instanceof SeedRun.Outcome.Violated v
          && v.violations().stream().allMatch(i6)) {
        System.out.println(
            "naive variant 'a failed cross-check seen as empty' caught at seed " + seed);
        assertInstanceOf(
            SeedRun.Outcome.Passed.class,
            new SeedRun(
                    seed,
                    SeedRun.STEPS,
                    Variant.agentView(ClaimListFailsEveryOtherStart.views()),
                    line -> true)
                .run(),
            "the real agent under the same failing lists at seed " + seed);
        return;
      }
    }
    org.junit.jupiter.api.Assertions.fail(
        "an agent taking a failed cross-check for no claims went unnoticed by I6 for "
            + BOUND
            + " seeds");
  }
}
