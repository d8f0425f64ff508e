package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hole 3's last window, closed in the store: a task the workload controller marked surplus at spec
 * generation G is deleted only while the workload is still at G. The race: the controller reads the
 * spec (2 replicas: worker 3 is surplus), the operator scales back to 4, then the delete arrives.
 */
class SpecDecisionGuardTest {
  @TempDir Path dir;
  Store store;
  DeterministicEnv env = new DeterministicEnv(3);
  Workload w;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private Workload scaled(ObjectRegistry api, int replicas) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var spec =
        new WorkloadSpec(
            List.of(new WorkerGroup("w", replicas, template, List.of(), null)), Optional.empty());
    var current = api.get(Kinds.WORKLOAD, "train");
    return current.isEmpty()
        ? api.create(new Workload(ObjectMeta.named("train"), spec, WorkloadStatus.EMPTY))
        : api.update(current.get().withSpec(spec));
  }

  private Task worker(ObjectRegistry api, String name) {
    return api.create(
        new Task(
            ObjectMeta.named(name).withOwner(OwnerReference.of(w)),
            new TaskSpec(
                Optional.empty(),
                List.of("train"),
                Map.of(),
                List.of(),
                List.of(),
                "exec",
                Optional.empty()),
            TaskStatus.EMPTY));
  }

  private static Task marked(ObjectRegistry api, Task t, long generation) {
    var labels = new HashMap<>(t.metadata().labels());
    labels.put(SpecDecision.SCALE_DOWN_AT, Long.toString(generation));
    return api.update(t.withMetadata(t.metadata().withLabels(labels)));
  }

  @Test
  void aScaleDownDecidedOnAnOlderSpecDoesNotDeleteAWantedWorker() {
    var api = new ObjectRegistry(store, env);
    w = scaled(api, 4);
    var t = worker(api, "train-w-3");
    w = scaled(api, 2);
    marked(api, t, w.metadata().generation()); // the controller's read: surplus at this generation
    scaled(api, 4); // the operator scales back up before the delete arrives

    assertThatThrownBy(() -> api.delete(Kinds.TASK, "train-w-3"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.is(Reason.Conflict)).isTrue();
              assertThat(e.getMessage())
                  .contains("deleted for a scale-down on generation 2", "now at generation 3");
            });
    assertThat(api.get(Kinds.TASK, "train-w-3").orElseThrow().metadata().isDeleting()).isFalse();
  }

  @Test
  void aScaleDownOnTheNewestSpecAndAnOperatorsDeleteGoThrough() {
    var api = new ObjectRegistry(store, env);
    w = scaled(api, 2);
    var surplus = marked(api, worker(api, "train-w-3"), w.metadata().generation());
    var unmarked = worker(api, "train-w-0");
    scaled(api, 5);

    assertThat(api.delete(Kinds.TASK, "train-w-0")).isInstanceOf(DeleteResult.Deleted.class);
    w = scaled(api, 1);
    marked(
        api,
        api.get(Kinds.TASK, surplus.metadata().name()).orElseThrow(),
        w.metadata().generation());
    assertThat(api.delete(Kinds.TASK, "train-w-3")).isInstanceOf(DeleteResult.Deleted.class);
    assertThat(unmarked.metadata().name()).isEqualTo("train-w-0");
  }

  /**
   * The allocator placed a gang of 1 on generation G; the operator scaled it to 2 before the pins
   * landed: the gang would hold devices for 1 of the 2 it now needs at once. A pin marked with the
   * newest generation goes through, and a later write of a marked task is not judged again.
   */
  @Test
  void aGangPlacedOnAnOlderSpecIsRefusedAsAWhole() {
    var api = new ObjectRegistry(store, env);
    w = scaled(api, 1);
    long decidedOn = w.metadata().generation();
    var t = worker(api, "train-w-0");
    w = scaled(api, 2);

    assertThatThrownBy(() -> placed(api, t, decidedOn))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.is(Reason.Conflict)).isTrue();
              assertThat(e.getMessage()).contains("placed with its gang on generation 1");
            });
    assertThat(api.get(Kinds.TASK, "train-w-0").orElseThrow().spec().node()).isEmpty();

    var pinned = placed(api, t, w.metadata().generation());
    scaled(api, 3);
    var moved = pinned.withSpec(pinned.spec().withNode(Optional.of("node-2")));
    assertThat(api.update(moved).spec().node()).contains("node-2");
  }

  private static Task placed(ObjectRegistry api, Task t, long generation) {
    var labels = new HashMap<>(t.metadata().labels());
    labels.put(SpecDecision.GANG_PLACED_AT, Long.toString(generation));
    return api.update(
        t.withMetadata(t.metadata().withLabels(labels))
            .withSpec(t.spec().withNode(Optional.of("node-1"))));
  }

  @Test
  void aCreateDecidedOnAnOlderSpecDoesNotOvershoot() {
    var api = new ObjectRegistry(store, env);
    w = scaled(api, 4);
    long decidedOn = w.metadata().generation(); // the controller's read: worker 3 is wanted
    scaled(api, 2); // the operator scales down before the create arrives
    var labels = Map.of(SpecDecision.CREATED_AT, Long.toString(decidedOn));
    var late =
        new Task(
            ObjectMeta.named("train-w-3").withLabels(labels).withOwner(OwnerReference.of(w)),
            new TaskSpec(
                Optional.empty(),
                List.of("train"),
                Map.of(),
                List.of(),
                List.of(),
                "exec",
                Optional.empty()),
            TaskStatus.EMPTY);

    assertThatThrownBy(() -> api.create(late))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue());
    assertThat(api.get(Kinds.TASK, "train-w-3")).isEmpty();
  }

  @Test
  void theNaiveStoreDeletesTheWantedWorker() {
    var api = ObjectRegistry.withoutCrossObjectRules(store, env);
    w = scaled(api, 4);
    var t = worker(api, "train-w-3");
    w = scaled(api, 2);
    marked(api, t, w.metadata().generation());
    scaled(api, 4);

    assertThat(api.delete(Kinds.TASK, "train-w-3")).isInstanceOf(DeleteResult.Deleted.class);
  }
}
