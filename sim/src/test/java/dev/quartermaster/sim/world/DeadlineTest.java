package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTransitions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A task's {@code activeDeadlineSeconds} is enforced, end to end in the whole cluster: a task still
 * running at its deadline ends {@code Failed: DeadlineExceeded} (the control plane's move), with a
 * warning event, and its agent kills the process; one that ends by itself first keeps its outcome.
 */
class DeadlineTest {
  @Test
  void aTaskStillRunningAtItsDeadlineIsStoppedAndSaysSo() {
    Campaign.quiet();
    var world = new WholeCluster(1, 1, 2, Variant.REAL);
    var env = world.env();
    world.api().create(JobStream.smallJob("long", "train", 10));
    world.api().create(JobStream.smallJob("short", "done", 30));
    assertThat(
            env.runUntil(
                () -> phase(world, "long-w-0") == TaskPhase.Running, Duration.ofSeconds(30)))
        .isTrue();
    long running = env.nanoTime();
    assertThat(
            env.runUntil(
                () -> phase(world, "long-w-0") == TaskPhase.Failed, Duration.ofSeconds(30)))
        .isTrue();
    var stopped = world.api().get(Kinds.TASK, "long-w-0").orElseThrow();
    assertThat(Duration.ofNanos(env.nanoTime() - running))
        .as("stopped at its deadline, not before")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(10));
    assertThat(stopped.status().reason()).isEqualTo(TaskTransitions.DEADLINE_EXCEEDED);
    assertThat(stopped.status().message()).contains("activeDeadlineSeconds (10s");
    assertThat(
            env.runUntil(
                () ->
                    world.api().list(Kinds.EVENT).items().stream()
                        .anyMatch(
                            e ->
                                e.spec().reason().equals(TaskTransitions.DEADLINE_EXCEEDED)
                                    && e.spec().involved().name().equals("long-w-0")),
                Duration.ofSeconds(30)))
        .as("a warning event says so")
        .isTrue();
    assertThat(
            env.runUntil(
                () ->
                    world.node("node-1").host.tasks().alive().stream()
                        .noneMatch(p -> p.task().equals("long-w-0")),
                Duration.ofSeconds(30)))
        .as("its process is killed")
        .isTrue();
    env.runUntil(() -> phase(world, "short-w-0").isFinished(), Duration.ofSeconds(30));
    assertThat(world.api().get(Kinds.TASK, "short-w-0").orElseThrow().status().phase())
        .as("ended by itself before its deadline")
        .isEqualTo(TaskPhase.Succeeded);
  }

  private static TaskPhase phase(WholeCluster world, String task) {
    return world.api().get(Kinds.TASK, task).map(t -> t.status().phase()).orElse(TaskPhase.Pending);
  }
}
