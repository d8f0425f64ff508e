package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A deleted task takes every claim made for it along, even one its controller created a moment
 * before and no cache has shown yet: the task controller finds a task's claims without listing them
 * all (it used to list every claim per deleted task), so what it reads must still be complete.
 * Tried: finding them from the claims cache alone leaves claims behind in most seeds.
 */
class TaskDeletionClaimsTest {
  @Test
  void aTaskDeletedBeforeItsClaimReachedTheCacheLeavesNoClaim() {
    var failures = new ArrayList<String>();
    for (long seed : SimCluster.seeds(40)) {
      var left = run(seed);
      if (!left.isEmpty()) {
        failures.add("seed " + seed + ": " + left);
      }
    }
    assertThat(failures).as("claims left behind; replay a seed with -Dqm.seeds").isEmpty();
  }

  private static List<String> run(long seed) {
    var c = new SimCluster(seed, WatchFaults.staleCache());
    var informers = new Informers(c.env(), c.api());
    var workloads =
        new WorkloadController(
            c.env(),
            c.api(),
            informers,
            WorkloadOptions.of(WorkloadController.DEFAULT_EXPECTATION_BOUND));
    var tasks = new TaskController(c.env(), c.api(), informers);
    tasks.startLeading(0);
    informers.start();
    List.of(workloads.loop(), tasks.loop()).forEach(ControlLoop::start);
    c.deviceClass("gpu", "gpu");
    c.api().create(Worlds.gpuWorkload("w", 10, "gpu", 1));
    // The moment a claim is in the store, its task is deleted: the caches may show neither yet.
    c.runUntil(() -> !c.api().list(Kinds.RESOURCE_CLAIM).items().isEmpty(), Duration.ofMinutes(1));
    for (var claim : c.api().list(Kinds.RESOURCE_CLAIM).items()) {
      claim.metadata().owner().ifPresent(o -> c.api().delete(Kinds.TASK, o.name()));
    }
    c.api().delete(Kinds.WORKLOAD, "w");
    c.runUntil(
        () ->
            c.api().list(Kinds.TASK).items().isEmpty()
                && c.api().list(Kinds.RESOURCE_CLAIM).items().isEmpty(),
        Duration.ofMinutes(5));
    return c.api().list(Kinds.RESOURCE_CLAIM).items().stream()
        .map(x -> x.metadata().name())
        .toList();
  }
}
