package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The promises over the whole cluster — real controllers and real agents, with crashes,
 * partitions, device loss and operator actions drawn from each seed. {@code -Dqm.seed=N} replays
 * one seed; {@code -Dqm.seeds=N -Dqm.steps=M} runs more.
 */
class WholeClusterTest {

  @Test
  void everyPromiseHoldsOverManySeeds() {
    if (!Boolean.getBoolean("qm.simLogs")) {
      Campaign.quiet();
    }
    long from = Long.getLong("qm.seed", 0L);
    int seeds = from > 0 ? 1 : Integer.getInteger("qm.wholeSeeds", 400);
    int steps = Integer.getInteger("qm.steps", 2000);
    var summary = Campaign.run(from > 0 ? from : 1, seeds, steps, 0, System.out::println);
    System.out.println("whole cluster: " + summary.line());
    assertTrue(summary.failures().isEmpty(), () -> summary.failures().size() + " seed(s) violated a promise; first: "
        + Campaign.describe(summary.failures().getFirst()));
  }
}
