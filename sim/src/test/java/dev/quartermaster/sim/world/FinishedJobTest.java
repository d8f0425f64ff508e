package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.WorkloadConditions;
import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Issue 44, item 1: a job of two workers whose command ends by itself. Once both have succeeded,
 * their claims are gone from the store and from every node's ledger, and the GPUs are free, while
 * the finished tasks stay to be read; the controllers of before kept them allocated and prepared
 * until the workload was deleted, and HELD says so. With {@code ttlSecondsAfterFinished} the
 * workload itself goes that long after its job is over, and not before.
 */
class FinishedJobTest {
  private static final Duration WITHIN = Duration.ofMinutes(2);

  @Test
  void aFinishedJobsDevicesGoBackWhileItsTasksStayToBeRead() {
    var s = new Scenario(Variant.REAL, false);
    assertThat(s.run(s::released)).as("claims released: " + s.violations).isTrue();
    assertThat(s.world.view().tasks())
        .extracting(t -> t.status().phase())
        .containsOnly(TaskPhase.Succeeded)
        .hasSize(2);
    assertThat(
            Capacity.of(s.world.view(), Set.of()).free().values().stream().mapToInt(i -> i).sum())
        .as("every GPU free")
        .isEqualTo(4);
    var complete =
        Condition.find(
                s.world
                    .api()
                    .get(Kinds.WORKLOAD, SeedRun.BATCH)
                    .orElseThrow()
                    .status()
                    .conditions(),
                WorkloadConditions.COMPLETE)
            .orElseThrow();
    assertThat(complete.message())
        .isEqualTo(
            "every task has ended for good and its devices went back; kept, with its tasks and"
                + " their logs, until deleted (spec.ttlSecondsAfterFinished deletes it by itself)");
  }

  /**
   * An operator deletes a succeeded task of a job that is over: the job is not over any more, so
   * the worker runs again, admitted again (its admission was released when the job ended). Here
   * other changes bring the workload up for admission; in the campaign's seed 202 none did, and it
   * waited 20 minutes until the admission controller was told of the deletion itself.
   */
  @Test
  void aDeletedResultOfAFinishedJobRunsAgain() {
    var s = new Scenario(Variant.REAL, false);
    assertThat(s.run(s::complete)).isTrue();
    var first = s.world.api().get(Kinds.TASK, "batch-w-0").orElseThrow().metadata().uid();
    s.world.api().delete(Kinds.TASK, "batch-w-0");
    s.promises.operatorDeleted("batch-w-0");
    assertThat(
            s.run(
                () ->
                    s.world
                        .api()
                        .get(Kinds.TASK, "batch-w-0")
                        .filter(t -> !t.metadata().uid().equals(first))
                        .filter(t -> t.status().phase() == TaskPhase.Succeeded)
                        .isPresent()))
        .as("run again and succeeded: " + s.violations)
        .isTrue();
  }

  @Test
  void theControllersThatKeptAFinishedTasksClaimsAreCaughtByHeld() {
    var s = new Scenario(Variant.controlView(KeepsFinishedClaims::new), false);
    assertThat(s.run(s::released)).isFalse();
    assertThat(s.violations)
        .isNotEmpty()
        .allSatisfy(v -> assertThat(v).startsWith("HELD claim batch-w-"));
  }

  @Test
  void aFinishedJobIsDeletedItsTtlAfterItEnded() {
    var s = new Scenario(Variant.REAL, true);
    assertThat(s.run(s::complete)).isTrue();
    var since =
        Condition.find(
                s.world
                    .api()
                    .get(Kinds.WORKLOAD, SeedRun.BATCH)
                    .orElseThrow()
                    .status()
                    .conditions(),
                WorkloadConditions.COMPLETE)
            .flatMap(Condition::lastTransition)
            .orElseThrow();
    var ttl = Duration.ofSeconds(SeedRun.BATCH_TTL_SECONDS);
    // Kept until its TTL is out (a second short of it, on the world's clock)...
    s.world
        .env()
        .runUntil(
            () -> false, Duration.between(s.world.env().now(), since.plus(ttl)).minusSeconds(1));
    assertThat(s.world.api().get(Kinds.WORKLOAD, SeedRun.BATCH)).isPresent();
    // ...and gone, its tasks with it, soon after.
    assertThat(
            s.run(
                () ->
                    s.world.api().get(Kinds.WORKLOAD, SeedRun.BATCH).isEmpty()
                        && s.world.view().tasks().isEmpty()
                        && s.world.view().claims().isEmpty()))
        .as("deleted by its TTL: " + s.violations)
        .isTrue();
  }

  /** The batch job of the seed runs, on 2 nodes of 2 GPUs, every promise checked at each step. */
  private static final class Scenario extends CheckedWorld {

    Scenario(Variant variant, boolean withTtl) {
      Campaign.quiet();
      super(new WholeCluster(5, 2, 2, variant));
      world.api().create(SeedRun.batch(withTtl));
      assertThat(
              run(
                  () ->
                      world.view().tasks().size() == 2
                          && world.view().tasks().stream()
                              .allMatch(t -> t.status().phase() == TaskPhase.Succeeded)))
          .as("both workers succeed: " + violations)
          .isTrue();
    }

    /** No claim left, none prepared in any ledger. */
    boolean released() {
      return world.view().claims().isEmpty()
          && world.nodes().stream()
              .allMatch(
                  n ->
                      n.ledger()
                          .map(
                              l ->
                                  l.claims().values().stream()
                                      .noneMatch(e -> e instanceof ClaimState.PrepareCompleted))
                          .orElse(true));
    }

    boolean complete() {
      return world
          .api()
          .get(Kinds.WORKLOAD, SeedRun.BATCH)
          .flatMap(w -> Condition.find(w.status().conditions(), WorkloadConditions.COMPLETE))
          .isPresent();
    }

    /**
     * Runs until {@code done}, a broken promise, or {@link #WITHIN}; whether done with none broken.
     */
    boolean run(BooleanSupplier done) {
      return run(done, WITHIN);
    }
  }
}
