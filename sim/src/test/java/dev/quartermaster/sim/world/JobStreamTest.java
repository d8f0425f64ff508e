package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.control.allocator.Backfill;
import org.junit.jupiter.api.Test;

/**
 * HOL in the stream-of-small-jobs scenario ({@link JobStream}): the real allocator places the large
 * gang within its bound on every seed tried, keeping every other promise, and the naive variant (no
 * reservation, {@link Backfill#OFF}: the allocator before issue 44) is caught by HOL at the first
 * seed.
 */
class JobStreamTest {
  private static final int SEEDS = 4;

  @Test
  void theGangIsPlacedWithinItsBoundUnderTheStream() {
    Campaign.quiet();
    for (long seed = 1; seed <= SEEDS; seed++) {
      var outcome = JobStream.run(seed, Variant.REAL);
      System.out.println("seed " + seed + ": " + outcome);
      assertThat(outcome).isInstanceOf(JobStream.Outcome.Placed.class);
    }
  }

  @Test
  void withoutTheReservationTheGangStarvesAndHolSeesIt() {
    Campaign.quiet();
    var outcome = JobStream.run(1, Variant.backfill(Backfill.OFF));
    System.out.println("naive variant 'no reservation', seed 1: " + outcome);
    assertThat(outcome).isInstanceOf(JobStream.Outcome.Starved.class);
    assertThat(((JobStream.Outcome.Starved) outcome).violation()).startsWith("HOL: gang big");
  }
}
