package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * TERM, as the partitions bench's {@code no-fencing} variant breaks it: the leader's create of a
 * task is in flight when the leader stops (paused, or cut off from the store) past its lease; the
 * other replica begins a newer term; then the create lands. Fenced, the store refuses it; with the
 * term recorded but not compared, it lands and TERM names the write and both terms.
 */
class FencedWriteTest {
  private static final Duration WITHIN = Duration.ofMinutes(1);

  @Test
  void aWriteOfAnEndedTermIsRefused() {
    var s = new Scenario(Variant.REAL);
    assertThat(s.landAfterANewerTermBegan()).as("no promise broken: " + s.violations).isTrue();
  }

  @Test
  void withoutTheFenceTheWriteLandsAndFenceCatchesIt() {
    var s = new Scenario(Variant.REAL.with(b -> b.controlView = UnfencedWrites::new));
    assertThat(s.landAfterANewerTermBegan()).isFalse();
    assertThat(s.violations)
        .anySatisfy(
            v ->
                assertThat(v)
                    .startsWith("TERM: a write decided under the term that began at revision")
                    .contains("after a newer term began at revision"));
  }

  private static final class Scenario extends CheckedWorld {
    Scenario(Variant variant) {
      Campaign.quiet();
      super(new WholeCluster(5, 3, 2, variant));
    }

    /**
     * Holds the leader's task writes in flight, creates a workload, stops the leader once a create
     * is held, lands the held writes as soon as another replica leads, and runs on; whether no
     * promise broke.
     */
    boolean landAfterANewerTermBegan() {
      assertThat(run(() -> world.replicas().stream().anyMatch(r -> r.plane().isLeader()), WITHIN))
          .isTrue();
      var leader = world.replicas().stream().filter(r -> r.plane().isLeader()).findFirst().get();
      leader.api().holdInFlight(Kinds.TASK);
      world.api().create(SeedRun.workload(2));
      assertThat(run(() -> leader.api().heldInFlight() > 0, WITHIN))
          .as("a task create in flight")
          .isTrue();
      leader.process().pause();
      assertThat(
              run(
                  () ->
                      world.replicas().stream().anyMatch(r -> r != leader && r.plane().isLeader()),
                  WITHIN))
          .as("another replica leads: " + violations)
          .isTrue();
      leader.api().landHeld();
      leader.process().resume();
      return run(() -> false, Duration.ofSeconds(30)) || violations.isEmpty();
    }
  }
}
