package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
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
 * A claim owned by a task is made only while the task may still use it: a task controller whose
 * cache has not yet seen the task finish (its claims already released) would otherwise make a claim
 * again, which the allocator would give devices nobody uses.
 */
class TaskClaimGuardTest {
  @TempDir Path dir;
  Store store;
  DeterministicEnv env = new DeterministicEnv(5);

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static Task task() {
    return new Task(
        ObjectMeta.named("t").withFinalizers(List.of("test.quartermaster.dev/hold")),
        new TaskSpec(
            Optional.of("node-1"),
            List.of("true"),
            Map.of(),
            List.of("t-gpu"),
            List.of(),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }

  private static ResourceClaim claimOf(Task t) {
    return new ResourceClaim(
        ObjectMeta.named("t-gpu").withOwner(OwnerReference.of(t)),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }

  private static Task finished(ObjectRegistry api, Task t) {
    t = api.updateStatus(t.withStatus(status(TaskPhase.Scheduled)));
    return api.updateStatus(t.withStatus(status(TaskPhase.Succeeded)));
  }

  private static TaskStatus status(TaskPhase phase) {
    return new TaskStatus(
        phase,
        phase.name(),
        "",
        Optional.of("node-1"),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of());
  }

  @Test
  void aClaimIsMadeForALiveTaskOnly() {
    var api = new ObjectRegistry(store, env);
    var t = api.create(task());
    var stale = t; // what a lagging cache says: Pending
    finished(api, t);
    assertThatThrownBy(() -> api.create(claimOf(stale)))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.is(Reason.Conflict)).isTrue();
              assertThat(e.getMessage())
                  .contains(
                      "is refused: its owner task t has Succeeded (a claim is made only for a task"
                          + " that may still use it)");
            });
    api.delete(Kinds.TASK, "t");
    assertThatThrownBy(() -> api.create(claimOf(stale))).hasMessageContaining("has Succeeded");
    assertThatThrownBy(
            () -> api.create(claimOf(stale.withMetadata(stale.metadata().withUid("an-earlier-t")))))
        .hasMessageContaining("was re-created");
    assertThat(api.list(Kinds.RESOURCE_CLAIM).items()).isEmpty();
  }

  @Test
  void aDeletingOrMissingTaskGetsNoClaim() {
    var api = new ObjectRegistry(store, env);
    var ghost = task();
    assertThatThrownBy(() -> api.create(claimOf(ghost))).hasMessageContaining("does not exist");
    var t = api.create(task());
    api.delete(Kinds.TASK, "t");
    assertThatThrownBy(() -> api.create(claimOf(t))).hasMessageContaining("is being deleted");
  }

  @Test
  void aLiveTasksClaimIsMade() {
    var api = new ObjectRegistry(store, env);
    var t = api.create(task());
    assertThat(api.create(claimOf(t)).metadata().owner()).isPresent();
  }

  @Test
  void withoutTheRuleAFinishedTaskGetsAClaimAgain() {
    var naive = ObjectRegistry.withoutCrossObjectRules(store, env);
    var t = naive.create(task());
    finished(naive, t);
    assertThat(naive.create(claimOf(t)).metadata().name()).isEqualTo("t-gpu");
  }
}
