package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.sim.SimCluster;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 49, seed 1 of the partitions run, in the simulation: the workload controller's create of a
 * task is answered "timed out" while the write is still in flight; the workload is deleted, its
 * cascade lists no tasks and lets it go; then the create lands. The store refuses it (its owner is
 * gone); a store without that rule keeps a task nothing will ever delete, and OWNER says so.
 */
class LateWriteTest {
  private static final Duration WITHIN = Duration.ofMinutes(1);

  @Test
  void aTaskCreateThatLandsAfterItsWorkloadIsGoneIsRefused() {
    var s = new Scenario(Variant.REAL);
    assertThat(s.landAfterTheWorkloadIsGone()).as("no promise broken: " + s.violations).isTrue();
    assertThat(s.world.view().tasks()).isEmpty();
  }

  @Test
  void withoutTheOwnerRuleTheLateTaskIsLeftAndOwnerCatchesIt() {
    var s = new Scenario(Variant.REAL.with(b -> b.storeRules = SimCluster.Rules.NO_OWNER_GUARD));
    assertThat(s.landAfterTheWorkloadIsGone()).isFalse();
    // I4 sees it too: a live task beyond the (deleted) workload's replicas.
    assertThat(s.violations)
        .anySatisfy(v -> assertThat(v).startsWith("OWNER task/" + SeedRun.WORKLOAD + "-w-"));
  }

  private static final class Scenario extends CheckedWorld {
    Scenario(Variant variant) {
      Campaign.quiet();
      super(new WholeCluster(3, 2, 2, variant));
    }

    private int held() {
      return world.replicas().stream().mapToInt(r -> r.api().heldInFlight()).sum();
    }

    /**
     * Holds the controllers' task writes in flight, creates the workload, deletes it once a create
     * is held, lands the held writes once it is gone, and runs on; whether no promise broke.
     */
    boolean landAfterTheWorkloadIsGone() {
      assertThat(run(() -> world.replicas().stream().anyMatch(r -> r.plane().isLeader()), WITHIN))
          .isTrue();
      world.replicas().forEach(r -> r.api().holdInFlight(Kinds.TASK));
      world.api().create(SeedRun.workload(2));
      assertThat(run(() -> held() > 0, WITHIN)).as("a task create in flight").isTrue();
      world.api().delete(Kinds.WORKLOAD, SeedRun.WORKLOAD);
      assertThat(run(() -> world.api().get(Kinds.WORKLOAD, SeedRun.WORKLOAD).isEmpty(), WITHIN))
          .as("the workload let go: " + violations)
          .isTrue();
      world.replicas().forEach(r -> r.api().landHeld());
      return run(() -> false, Duration.ofSeconds(30)) || violations.isEmpty();
    }
  }
}
