package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.store.Txn;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * PHASE, the promise that a finished task never runs again, catches a writer that got past the
 * store's guard: here one that puts the task's bytes into the store itself.
 */
class FinishedTaskPromiseTest {
  @Test
  void aFinishedTaskStoredRunningAgainIsCaught() {
    Campaign.quiet();
    var world = new WholeCluster(1, 1, 1, Variant.REAL);
    var promises = new Promises(world);
    // Created finished: a create is no move, and nothing runs it (the world's clock does not move).
    var done =
        world
            .api()
            .create(
                new Task(
                    ObjectMeta.named("done"),
                    new TaskSpec(
                        Optional.empty(),
                        List.of("true"),
                        Map.of(),
                        List.of(),
                        List.of(),
                        "exec",
                        Optional.empty()),
                    status(TaskPhase.Succeeded)));
    assertThat(promises.check()).isEmpty();

    var again = done.withStatus(status(TaskPhase.Running));
    world
        .store()
        .txn(
            Txn.when(
                List.of(),
                List.of(new Txn.Op.Put("/registry/tasks/done", ObjectCodec.toJson(again)))));

    assertThat(promises.check())
        .containsExactly("PHASE task done: Succeeded → Running (a finished task never runs again)");
  }

  private static TaskStatus status(TaskPhase phase) {
    return new TaskStatus(
        phase,
        "",
        "",
        Optional.of("node-1"),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of());
  }
}
