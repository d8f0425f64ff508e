package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Seed 1 over the whole simulated cluster: a two-node domain job runs, and on node-1 a worker is
 * replaced 100 times in every order {@link DomainChurn} forces, with the job's own worker there
 * deleted and re-made every fifth round. The real agent keeps every promise of {@link
 * DomainPromises}; the naive agent of NVIDIA's incident, which leaves the domain on each unprepare,
 * is caught.
 */
class DomainChurnTest {

  @Test
  void theRealAgentKeepsTheDomainUnderEveryWorkerThroughAHundredReplacements() {
    var run = churn(Variant.REAL, 100);
    assertThat(run.promises().violations()).isEmpty();
    assertThat(run.promises().checked()).isGreaterThan(1_000);
    System.out.println(
        "seed 1 churn, simulated: 100 replacements, "
            + run.promises().checked()
            + " changes judged, 0 violations");
    assertThat(run.promises().daemon("node-1", "nvlink")).get().matches(d -> d.ready());
  }

  @Test
  void anAgentThatLeavesTheDomainOnEachUnprepareIsCaught() {
    var run = churn(Variant.host(TearDownOnUnprepareHost::new), 10);
    System.out.println("naive agent caught: " + run.promises().violations().getFirst());
    assertThat(run.promises().violations())
        .isNotEmpty()
        .anyMatch(
            v -> v.contains("the daemon was stopped under it") || v.contains("daemon there is"));
  }

  record Run(WholeCluster cluster, DomainPromises promises) {}

  private static Run churn(Variant variant, int rounds) {
    var w = new WholeCluster(1, 2, 4, 16, variant);
    var promises = new DomainPromises();
    DomainJob.judgedBy(w, promises);
    w.api().create(DomainJob.domain());
    w.api().create(DomainJob.job());
    var driver =
        new DomainChurn.Driver() {
          @Override
          public ApiClient api() {
            return w.api();
          }

          @Override
          public void await(String what, BooleanSupplier done) {
            for (int i = 0; i < 600 && !done.getAsBoolean(); i++) {
              w.env().advance(Duration.ofMillis(100));
            }
            assertThat(done.getAsBoolean()).as("%s within a simulated minute", what).isTrue();
          }
        };
    driver.await(
        "the job running",
        () ->
            w.api().list(Kinds.TASK).items().stream()
                    .filter(t -> t.status().phase() == TaskPhase.Running)
                    .count()
                == 2);
    new DomainChurn(driver, "nvlink", "node-1", List.of("sleep", "3600")).run(rounds, "job");
    driver.await(
        "the job's workers running again",
        () ->
            w.api().list(Kinds.TASK).items().stream()
                    .filter(
                        t ->
                            t.metadata().owner().isPresent()
                                && t.status().phase() == TaskPhase.Running)
                    .count()
                == 2);
    return new Run(w, promises);
  }
}
