package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/**
 * Runs with a MIG node (slice jobs, an agent killed between a MIG create and its record): the real
 * agent keeps MIG-LEAK, MIG-SHARED and MIG-CAPS, and each naive agent is caught by its promise at
 * some seed where the real one passes.
 */
class MigSimulationTest {
  private static final int STEPS = SeedRun.STEPS;
  private static final int SEEDS = 6;
  private static final int BOUND = 30;

  @Test
  void theRealAgentKeepsTheMigPromises() {
    var failed = new ArrayList<String>();
    for (long seed = 1; seed <= SEEDS; seed++) {
      if (run(seed, Variant.REAL, "") instanceof SeedRun.Outcome.Violated v) {
        failed.add(v.toString());
      }
    }
    assertTrue(failed.isEmpty(), () -> String.join("\n", failed));
  }

  @Test
  void anAgentThatForgetsInstancesAtRestartLeaksOne() {
    caught(MigNaiveVariants.forgetsInstancesAtRestart(), "MIG-LEAK");
  }

  @Test
  void aPrepareThatSkipsTheCapabilityNodesIsCaught() {
    caught(MigNaiveVariants.skipsCapabilityNodes(), "MIG-CAPS");
  }

  private static SeedRun.Outcome run(long seed, Variant variant, String promise) {
    return new SeedRun(seed, STEPS, variant, line -> line.startsWith(promise), 1).run();
  }

  private static void caught(Variant naive, String promise) {
    for (long seed = 1; seed <= BOUND; seed++) {
      if (run(seed, naive, promise) instanceof SeedRun.Outcome.Violated v
          && run(seed, Variant.REAL, promise) instanceof SeedRun.Outcome.Passed) {
        System.out.println(promise + " caught at seed " + seed + ": " + v.violations());
        return;
      }
    }
    throw new AssertionError(
        "the naive agent went unnoticed by " + promise + " for " + BOUND + " seeds");
  }
}
