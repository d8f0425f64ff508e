package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A group taken out of a workload's spec loses its tasks; the other groups keep theirs. The
 * workload controller counts a workload's tasks per group before it looks for such tasks (every
 * pass of a large workload comes by), so this checks that the count still finds them.
 */
class RemovedGroupTest {

  @Test
  void theTasksOfARemovedGroupGoAndTheOthersStay() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      new SimClusterOn(c.api()).world(2, 4);
      Worlds.start(c);
      var one = Worlds.gpuWorkload("train", 2, "gpu", 1);
      var first = one.spec().groups().getFirst();
      var second = new WorkerGroup("eval", 2, first.template(), first.claimTemplates(), null);
      c.api()
          .create(
              one.withSpec(new WorkloadSpec(List.of(first, second), one.spec().computeDomain())));
      assertThat(
              c.runUntil(
                  () ->
                      names(c)
                          .equals(
                              List.of("train-eval-0", "train-eval-1", "train-w-0", "train-w-1")),
                  Duration.ofMinutes(1)))
          .as("seed %d: both groups' tasks", seed)
          .isTrue();

      var current = c.api().get(Kinds.WORKLOAD, "train").orElseThrow();
      c.api()
          .update(
              current.withSpec(new WorkloadSpec(List.of(first), current.spec().computeDomain())));
      assertThat(
              c.runUntil(
                  () -> names(c).equals(List.of("train-w-0", "train-w-1")), Duration.ofMinutes(2)))
          .as("seed %d: only group w's tasks left, got %s", seed, names(c))
          .isTrue();
    }
  }

  private static List<String> names(SimCluster c) {
    return c.api().list(Kinds.TASK).items().stream()
        .map(Task::metadata)
        .map(m -> m.name())
        .sorted()
        .toList();
  }
}
