package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.control.allocator.SliceCheck;
import org.junit.jupiter.api.Test;

/**
 * The allocator that trusts its cached slices (before campaign seed 979) in the whole-cluster
 * simulation: a node mended after a fence, one of its GPUs' device nodes gone meanwhile, is seen
 * schedulable again before its new slice reaches the leader's cache; a gang is placed on the gone
 * GPU and its member waits in Preparing, holding devices, until L1 says so. The real allocator
 * reads the slice live and passes the same seed.
 */
class StaleSliceVariantTest {
  private static final long SEED = 979;

  @Test
  void trustingTheCachedSlicesIsCaughtByL1() {
    Campaign.quiet();
    var naive = Variant.planeOptions(o -> o.withSliceCheck(SliceCheck.CACHED));
    var outcome = new SeedRun(SEED, SeedRun.STEPS, naive).run();
    assertThat(outcome).isInstanceOf(SeedRun.Outcome.Violated.class);
    System.out.println(Campaign.describe((SeedRun.Outcome.Violated) outcome));
    assertThat(((SeedRun.Outcome.Violated) outcome).violations())
        .anyMatch(v -> v.startsWith("L1") && v.contains("Preparing holding devices"));
    assertThat(SeedRun.run(SEED, SeedRun.STEPS)).isInstanceOf(SeedRun.Outcome.Passed.class);
  }
}
