package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, hole 9: a task name the workload wants is held by a task it does not own. Both ways it
 * happens: workloads {@code ww} (group {@code x-y}) and {@code ww-x} (group {@code y}) both name
 * {@code ww-x-y-0}; a hand-made task {@code training-workers-4} sits in a scale from 4 to 6. The
 * workload says so ({@code TasksCreated=False NameTaken}, naming the task and its holder), the rest
 * of the group is created, and once the holder is gone the slot is filled. The naive variant
 * ({@link HolderBlindApi}) stalls.
 */
class NameCollisionTest {
  private static final Duration SETTLE = Duration.ofSeconds(30);

  @Test
  void twoWorkloadsWhoseNamesCollide() {
    for (long seed : SimCluster.seeds(5)) {
      var c = world(seed, Function.identity());
      c.api().create(workload("ww-x", "y", 1));
      assertThat(c.runUntil(() -> exists(c, "ww-x-y-0"), SETTLE)).isTrue();
      c.api().create(workload("ww", "x-y", 3));
      assertThat(
              c.runUntil(
                  () ->
                      exists(c, "ww-x-y-1")
                          && exists(c, "ww-x-y-2")
                          && nameTaken(c, "ww").isPresent(),
                  SETTLE))
          .as("seed %d: the rest of the group, and the report", seed)
          .isTrue();
      assertThat(nameTaken(c, "ww").orElseThrow()).contains("ww-x-y-0").contains("workload/ww-x");
      // The holder goes: the slot is filled, and the report clears.
      c.api().delete(Kinds.WORKLOAD, "ww-x");
      assertThat(
              c.runUntil(
                  () -> owner(c, "ww-x-y-0").equals("ww") && nameTaken(c, "ww").isEmpty(),
                  Duration.ofMinutes(2)))
          .as("seed %d", seed)
          .isTrue();
    }
  }

  @Test
  void aHandMadeTaskInTheWayOfAScaleUp() {
    for (long seed : SimCluster.seeds(5)) {
      var c = world(seed, Function.identity());
      c.api().create(workload("training", "workers", 4));
      assertThat(c.runUntil(() -> exists(c, "training-workers-3"), SETTLE)).isTrue();
      c.api().create(handMade("training-workers-4"));
      c.scale("training", 6);
      assertThat(
              c.runUntil(
                  () -> exists(c, "training-workers-5") && nameTaken(c, "training").isPresent(),
                  SETTLE))
          .as("seed %d", seed)
          .isTrue();
      assertThat(nameTaken(c, "training").orElseThrow())
          .contains("training-workers-4")
          .contains("nobody (made by hand)");
      assertThat(
              c.api().get(Kinds.TASK, "training-workers-4").orElseThrow().metadata().isDeleting())
          .as("not ours to delete")
          .isFalse();
      c.api().delete(Kinds.TASK, "training-workers-4");
      assertThat(
              c.runUntil(
                  () ->
                      owner(c, "training-workers-4").equals("training")
                          && nameTaken(c, "training").isEmpty(),
                  Duration.ofMinutes(2)))
          .as("seed %d", seed)
          .isTrue();
    }
  }

  @Test
  void theNaiveControllerStallsSilently() {
    int caught = 0;
    for (long seed : SimCluster.seeds(5)) {
      var c = world(seed, HolderBlindApi::new);
      c.api().create(workload("training", "workers", 4));
      c.runUntil(() -> exists(c, "training-workers-3"), SETTLE);
      c.api().create(handMade("training-workers-4"));
      c.scale("training", 6);
      boolean ok =
          c.runUntil(
              () -> exists(c, "training-workers-5") && nameTaken(c, "training").isPresent(),
              Duration.ofMinutes(2));
      caught += ok ? 0 : 1;
    }
    System.out.println(
        "name-collision: naive controller stalled silently in "
            + caught
            + " of "
            + SimCluster.seeds(5).length
            + " seeds");
    assertThat(caught).isEqualTo(SimCluster.seeds(5).length);
  }

  private static SimCluster world(long seed, Function<ApiClient, ApiClient> controllerApi) {
    var c = new SimCluster(seed, WatchFaults.staleCache());
    var inf = new Informers(c.env(), c.api());
    var loops =
        List.of(
            new WorkloadController(
                    c.env(),
                    controllerApi.apply(c.api()),
                    inf,
                    WorkloadOptions.of(WorkloadController.DEFAULT_EXPECTATION_BOUND))
                .loop(),
            new TaskController(c.env(), c.api(), inf).loop());
    inf.start();
    loops.forEach(ControlLoop::start);
    return c;
  }

  private static boolean exists(SimCluster c, String task) {
    return c.api().get(Kinds.TASK, task).isPresent();
  }

  private static String owner(SimCluster c, String task) {
    return c.api()
        .get(Kinds.TASK, task)
        .flatMap(t -> t.metadata().owner())
        .map(o -> o.name())
        .orElse("");
  }

  /** The workload's NameTaken report, if it makes one. */
  private static Optional<String> nameTaken(SimCluster c, String workload) {
    return c.api()
        .get(Kinds.WORKLOAD, workload)
        .flatMap(w -> Condition.find(w.status().conditions(), WorkloadConditions.TASKS_CREATED))
        .filter(x -> !x.isTrue() && x.reason().equals(WorkloadConditions.NAME_TAKEN))
        .map(Condition::message);
  }

  private static Task handMade(String name) {
    return new Task(
        ObjectMeta.named(name),
        new TaskSpec(
            Optional.empty(),
            List.of("sleep", "1000"),
            Map.of(),
            List.of(),
            List.of(),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }

  private static Workload workload(String name, String group, int replicas) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var g = new WorkerGroup(group, replicas, template, List.of(), null);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(g), Optional.empty()),
        WorkloadStatus.EMPTY);
  }
}
