package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task is made for a live workload only (issue 49, seed 1 of the partitions run): its create,
 * delayed in flight, landed after the workload's cascade had listed no tasks and let the workload
 * go, and the task stayed Pending for ever with nothing to delete it.
 */
class OwnerGuardTest {
  @TempDir Path dir;
  Store store;
  DeterministicEnv env = new DeterministicEnv(7);

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static Workload workload() {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    return new Workload(
        ObjectMeta.named("w0").withFinalizers(List.of("quartermaster.dev/tasks")),
        new WorkloadSpec(
            List.of(new WorkerGroup("workers", 1, template, List.of(), null)), Optional.empty()),
        WorkloadStatus.EMPTY);
  }

  private static Task workerOf(Workload w) {
    return new Task(
        ObjectMeta.named("w0-workers-0").withOwner(OwnerReference.of(w)),
        new TaskSpec(
            Optional.empty(),
            List.of("train"),
            Map.of(),
            List.of(),
            List.of(),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }

  /** The workload let go: its finalizer removed after its deletion. */
  private static void letGo(ObjectRegistry api) {
    var deleting = api.get(Kinds.WORKLOAD, "w0").orElseThrow();
    api.update(deleting.withMetadata(deleting.metadata().withFinalizers(List.of())));
  }

  @Test
  void aCreateThatLandsAfterItsOwnerWasLetGoIsRefused() {
    var api = new ObjectRegistry(store, env);
    var w = api.create(workload());
    api.delete(Kinds.WORKLOAD, "w0");
    assertThatThrownBy(() -> api.create(workerOf(w)))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.is(Reason.Conflict)).isTrue();
              assertThat(e.getMessage())
                  .contains(
                      "task/w0-workers-0 is refused: metadata.owner workload/w0 is being deleted");
            });
    letGo(api);
    assertThatThrownBy(() -> api.create(workerOf(w))).hasMessageContaining("does not exist");
    var again = api.create(workload());
    assertThatThrownBy(() -> api.create(workerOf(w))).hasMessageContaining("was re-created");
    assertThat(api.create(workerOf(again)).metadata().owner()).isPresent();
  }

  @Test
  void theOwnersDeletionBetweenTheCheckAndTheCommitFailsTheCreate() {
    var racing = new InterleavingStore(store);
    var api = new ObjectRegistry(racing, env);
    var w = api.create(workload());
    var other = new ObjectRegistry(store, env);
    racing.beforeNextTxn(
        () -> {
          other.delete(Kinds.WORKLOAD, "w0");
          letGo(other);
        });
    assertThatThrownBy(() -> api.create(workerOf(w))).hasMessageContaining("does not exist");
    assertThat(api.list(Kinds.TASK).items()).isEmpty();
  }

  @Test
  void anOwnerGivenByAnUpdateMustBeLiveToo() {
    var api = new ObjectRegistry(store, env);
    var w = api.create(workload());
    var orphan =
        api.create(
            new Task(ObjectMeta.named("w0-workers-0"), workerOf(w).spec(), TaskStatus.EMPTY));
    api.delete(Kinds.WORKLOAD, "w0");
    letGo(api);
    assertThatThrownBy(
            () ->
                api.update(orphan.withMetadata(orphan.metadata().withOwner(OwnerReference.of(w)))))
        .hasMessageContaining("does not exist");
  }

  @Test
  void withoutTheRuleTheTaskOutlivesItsWorkload() {
    var naive = ObjectRegistry.withoutCrossObjectRules(store, env);
    var w = naive.create(workload());
    naive.delete(Kinds.WORKLOAD, "w0");
    letGo(naive);
    naive.create(workerOf(w));
    assertThat(naive.get(Kinds.WORKLOAD, "w0")).isEmpty();
    assertThat(naive.list(Kinds.TASK).items()).hasSize(1);
  }
}
