package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A control-plane replica paused past its renew deadline but not past its lease finds the lease
 * still its own when it resumes, and begins a new term. The naive leader ({@link
 * StaleTermCallbacks}) keeps its controllers on the ended term's token: every write is fenced, no
 * other replica takes over, and the campaign catches it by L1 (nothing converges) on a seed the
 * real system passes.
 */
class PausedLeaderTest {
  private static final int BOUND = 100;

  @Test
  void aLeaderWhoseTermEndedUnderItsControllersIsCaughtByL1() {
    Campaign.quiet();
    int seed =
        GangNaiveVariantsTest.firstCaught(
            Variant.leaderCallbacks(StaleTermCallbacks::new), "L1", BOUND);
    System.out.println(
        "naive variant 'controllers keep an ended term' caught by L1 at seed " + seed);
    assertTrue(
        seed > 0, "controllers keeping an ended term went unnoticed by L1 for " + BOUND + " seeds");
  }
}
