package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task's phase machine holds in the store whoever writes: a naive client that builds a status
 * by hand (no {@link TaskTransitions} move) is refused with 409 naming the rule, and nothing
 * changes.
 */
class TaskPhaseGuardTest {
  private static final TaskSpec SPEC =
      new TaskSpec(
          Optional.empty(),
          List.of("train"),
          Map.of(),
          List.of(),
          List.of(),
          "exec",
          Optional.empty());

  @TempDir Path dir;
  Store store;
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, new DeterministicEnv(5));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void aNaiveWriterCannotRunAFinishedTaskAgain() {
    var done = walk(api, "t", TaskPhase.Scheduled, TaskPhase.Running, TaskPhase.Succeeded);
    long before = store.currentRevision();

    var refused =
        catchThrowableOfType(
            ApiException.class, () -> api.updateStatus(done.withStatus(naive(TaskPhase.Running))));

    assertThat(refused.error().code()).isEqualTo(409);
    assertThat(refused.getMessage())
        .isEqualTo("task t: Succeeded → Running refused: a finished task never runs again");
    assertThat(store.currentRevision()).as("nothing written").isEqualTo(before);
    assertThat(api.get(Kinds.TASK, "t").orElseThrow()).isEqualTo(done);
  }

  @Test
  void withoutTheGuardTheSameWriteRunsTheFinishedTaskAgain() {
    var open = ObjectRegistry.withoutCrossObjectRules(store, new DeterministicEnv(5));
    var done = walk(open, "t", TaskPhase.Scheduled, TaskPhase.Running, TaskPhase.Succeeded);
    assertThat(open.updateStatus(done.withStatus(naive(TaskPhase.Running))).status().phase())
        .isEqualTo(TaskPhase.Running);
  }

  /**
   * Each pair of phases, reached by a create (never judged), then written: the store agrees with
   * the table.
   */
  @Test
  void everyChangeOfPhaseIsJudgedAsTheTableSays() {
    var disagreements = new ArrayList<String>();
    for (var from : TaskPhase.values()) {
      for (var to : TaskPhase.values()) {
        var name = (from + "-" + to).toLowerCase();
        var t = api.create(new Task(ObjectMeta.named(name), SPEC, naive(from)));
        var rule = TaskTransitions.refusal(from, to);
        try {
          api.updateStatus(t.withStatus(naive(to)));
          rule.ifPresent(r -> disagreements.add(from + " → " + to + ": accepted, but " + r.text()));
        } catch (ApiException e) {
          if (rule.isEmpty()
              || e.error().code() != 409
              || !e.getMessage().endsWith("refused: " + rule.get().text())) {
            disagreements.add(from + " → " + to + ": " + e.getMessage());
          }
          assertThat(api.get(Kinds.TASK, name).orElseThrow().status().phase()).isEqualTo(from);
        }
      }
    }
    assertThat(disagreements).isEmpty();
  }

  /**
   * A write with its status in a batch, as the allocator schedules a task, is judged like a status
   * write.
   */
  @Test
  void aBatchWriteWithItsStatusIsJudgedToo() {
    var done = walk(api, "t", TaskPhase.Scheduled, TaskPhase.Failed);
    var refused =
        catchThrowableOfType(
            ApiException.class,
            () ->
                api.commit(
                    List.of(
                        new Write.UpdateWithStatus(done.withStatus(naive(TaskPhase.Scheduled))))));
    assertThat(refused.getMessage())
        .isEqualTo("task t: Failed → Scheduled refused: a finished task never runs again");
    assertThat(api.get(Kinds.TASK, "t").orElseThrow().status().phase()).isEqualTo(TaskPhase.Failed);
  }

  /**
   * A spec or metadata write keeps the stored status; a status write that keeps the phase is no
   * move.
   */
  @Test
  void writesThatKeepThePhasePass() {
    var done = walk(api, "t", TaskPhase.Scheduled, TaskPhase.Running, TaskPhase.Failed);
    var relabelled =
        api.update(
            done.withMetadata(done.metadata().withLabels(Map.of("k", "v")))
                .withStatus(naive(TaskPhase.Running)));
    assertThat(relabelled.status().phase())
        .as("a plain update keeps the stored status")
        .isEqualTo(TaskPhase.Failed);
    var restarting =
        new TaskStatus(
            TaskPhase.Failed,
            "Error",
            "",
            Optional.empty(),
            Optional.empty(),
            Optional.of(1),
            Optional.empty(),
            Optional.empty(),
            List.of(
                new Condition(
                    "Restarting", Condition.Status.True, "BackOff", "", Optional.empty())));
    assertThat(api.updateStatus(relabelled.withStatus(restarting)).status().conditions())
        .hasSize(1);
  }

  /** The same name, a new uid: a create, which starts over at whatever phase it is created with. */
  @Test
  void aTaskCreatedAgainUnderItsNameStartsOver() {
    var done = walk(api, "t", TaskPhase.Scheduled, TaskPhase.Running, TaskPhase.Succeeded);
    api.delete(Kinds.TASK, "t");
    var again = api.create(new Task(ObjectMeta.named("t"), SPEC, null));
    assertThat(again.metadata().uid()).isNotEqualTo(done.metadata().uid());
    assertThat(walk(api, again, TaskPhase.Scheduled, TaskPhase.Running).status().phase())
        .isEqualTo(TaskPhase.Running);
    // The old incarnation's writer, naming its uid, is refused as before: it is not this task.
    var stale =
        catchThrowableOfType(
            ApiException.class, () -> api.updateStatus(done.withStatus(naive(TaskPhase.Failed))));
    assertThat(stale.getMessage()).contains("was deleted and re-created");
  }

  /** Task {@code name}, created Pending, then written to each of {@code phases} in turn. */
  private static Task walk(ObjectRegistry api, String name, TaskPhase... phases) {
    return walk(api, api.create(new Task(ObjectMeta.named(name), SPEC, null)), phases);
  }

  private static Task walk(ObjectRegistry api, Task t, TaskPhase... phases) {
    for (var p : phases) {
      t = api.updateStatus(t.withStatus(naive(p)));
    }
    return t;
  }

  /** A status built by hand, as a client that knows nothing of the moves would. */
  private static TaskStatus naive(TaskPhase phase) {
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
