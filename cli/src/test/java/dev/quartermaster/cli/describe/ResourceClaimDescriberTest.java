package dev.quartermaster.cli.describe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResourceClaimDescriberTest {
  @TempDir Path dir;

  @Test
  void aDeletingClaimSaysWhichTasksItWaitsFor() {
    try (var store = SqliteStore.open(dir.resolve("store.db"))) {
      var env = new DeterministicEnv(1);
      var api = new ObjectRegistry(store, env);
      // Created Running (a create is no move of its phase; Pending → Running is refused).
      api.create(
          new Task(
              ObjectMeta.named("smoke-test"),
              new TaskSpec(
                  Optional.of("node-1"),
                  List.of("nvidia-smi"),
                  Map.of(),
                  List.of("single-gpu"),
                  List.of(),
                  "exec",
                  Optional.empty()),
              new TaskStatus(
                  TaskPhase.Running,
                  "DeviceCheckPassed",
                  "",
                  Optional.of("node-1"),
                  Optional.empty(),
                  Optional.empty(),
                  Optional.empty(),
                  Optional.empty(),
                  List.of())));
      var status =
          new ResourceClaimStatus(
              Optional.empty(), List.of("smoke-test", "gone-task"), Map.of(), List.of());
      var claim =
          new ResourceClaim(
              ObjectMeta.named("single-gpu").withDeletedAt(Instant.parse("2026-03-01T12:00:00Z")),
              ResourceClaimSpec.EMPTY,
              status);

      var text =
          Describers.describe(
              claim, new DescribeContext(api, Instant.parse("2026-03-01T12:00:05Z")));

      assertThat(text)
          .contains("task/smoke-test")
          .contains("task/gone-task")
          .contains("waits for task/smoke-test (Running on node-1)")
          .contains("waits for task/gone-task (gone)");
    }
  }

  /**
   * A deleted claim allocated to a node whose agent is down waits for that node: the line says who
   * takes the finalizer off, and what to do if the node is gone for good.
   */
  @Test
  void aDeletingClaimSaysWhichNodeItWaitsForAndHowToFenceIt() {
    try (var store = SqliteStore.open(dir.resolve("store.db"))) {
      var api = new ObjectRegistry(store, new DeterministicEnv(1));
      var claim =
          new ResourceClaim(
              ObjectMeta.named("edgejob-w-0-gpu")
                  .withFinalizers(List.of("quartermaster.dev/agent-edge-1"))
                  .withDeletedAt(Instant.parse("2026-03-01T12:00:00Z")),
              ResourceClaimSpec.EMPTY,
              ResourceClaimStatus.EMPTY);

      var text =
          Describers.describe(
              claim, new DescribeContext(api, Instant.parse("2026-03-01T12:00:05Z")));

      assertThat(text)
          .contains(
              "waiting for finalizers: quartermaster.dev/agent-edge-1 (node edge-1's agent takes"
                  + " it off once it has let the claim go; if the node is down for good: qm node"
                  + " fence edge-1)");
    }
  }
}
