package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Each naive variant plugged into the whole-cluster simulation must be caught within a bounded
 * number of seeds: that is what shows the simulation can see the hole it stands for.
 */
public class NaiveVariantsTest {
  private static final int BOUND = 100;
  private static final int STEPS = SeedRun.STEPS;

  @Test
  void anAgentThatLeavesItsPredecessorsProcessesRunningIsCaught() {
    Campaign.quiet();
    int caughtAt = firstCaught(Variant.host(ForgetfulHost::new));
    System.out.println("naive variant 'leftover processes kept' caught at seed " + caughtAt);
    assertTrue(caughtAt > 0, "the naive agent went unnoticed for " + BOUND + " seeds");
  }

  /**
   * The first seed (1-based) on which the variant violates a promise and the real agent does not,
   * or -1 within {@link #BOUND}.
   */
  public static int firstCaught(Variant variant) {
    return firstCaught(variant, BOUND);
  }

  /** As above, within {@code bound} seeds. */
  public static int firstCaught(Variant variant, int bound) {
    for (int seed = 1; seed <= bound; seed++) {
      if (new SeedRun(seed, STEPS, variant).run() instanceof SeedRun.Outcome.Violated v
          && SeedRun.run(seed, STEPS) instanceof SeedRun.Outcome.Passed) {
        System.out.println(Campaign.describe(v));
        return seed;
      }
    }
    return -1;
  }
}
