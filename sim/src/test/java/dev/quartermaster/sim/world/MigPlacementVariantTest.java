package dev.quartermaster.sim.world;

import org.junit.jupiter.api.Test;

/**
 * The placement side of MIG in the whole-cluster simulation: a placement that ignores counters
 * ({@link CounterBlindApi}, on a store blind to them too, as a naive allocator's store would be)
 * gives two live claims overlapping slices of one GPU, and I1 over counters ({@link ExclusiveUse})
 * catches it at a seed the real system passes.
 */
class MigPlacementVariantTest {
  private static final int BOUND = 20;

  /** I1 as the simulation's one judge reads it off the store's claims. */
  private static final String I1 = "I1 store";

  static Variant counterBlind() {
    return Variant.allocatorView(CounterBlindApi::new).withoutSharedCounters();
  }

  @Test
  void aPlacementThatIgnoresCountersIsCaughtByI1() {
    Campaign.quiet();
    for (long seed = 1; seed <= BOUND; seed++) {
      if (run(seed, counterBlind(), I1) instanceof SeedRun.Outcome.Violated v
          && v.violations().stream().allMatch(l -> l.startsWith(I1))
          && run(seed, Variant.REAL, "") instanceof SeedRun.Outcome.Passed) {
        System.out.println(
            "naive MIG placement caught by I1 at seed " + seed + "\n" + Campaign.describe(v));
        return;
      }
    }
    throw new AssertionError("placement that ignores counters went unnoticed for " + BOUND);
  }

  private static SeedRun.Outcome run(long seed, Variant variant, String promise) {
    return new SeedRun(seed, SeedRun.STEPS, variant, line -> line.startsWith(promise), 1).run();
  }
}
