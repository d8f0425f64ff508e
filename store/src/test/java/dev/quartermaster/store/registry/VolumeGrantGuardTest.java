package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.volume.VolumeClaimMove;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
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
 * A claim is granted only to a task that may still run on the claim's node, judged by the store.
 * The race it closes (seen as the crash test's volume going back from Free to Taken): the volume
 * controller sees the finished task's claim released on its volume watch, while its task watch has
 * not yet brought the task's Succeeded; planning from that cache, it grants the task the volume
 * again.
 */
class VolumeGrantGuardTest {
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

  private static Task task(String node) {
    return new Task(
        ObjectMeta.named("t"),
        new TaskSpec(
            Optional.of(node),
            List.of("true"),
            Map.of(),
            List.of(),
            List.of(VolumeUse.writer("v")),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }

  private static Task inPhase(ObjectRegistry api, Task t, TaskPhase phase) {
    var s = t.status();
    return api.updateStatus(
        t.withStatus(
            new TaskStatus(
                phase,
                phase.name(),
                "",
                t.spec().node(),
                s.deviceCheck(),
                s.exitCode(),
                s.startedAt(),
                s.finishedAt(),
                s.conditions())));
  }

  private static Volume granted(ObjectRegistry api, Volume v, Task t, String node) {
    var claim =
        new VolumeClaim(
            t.metadata().name(),
            t.metadata().uid(),
            node,
            VolumeClaim.Mode.Write,
            VolumeClaim.State.Taken,
            false,
            Map.of());
    return api.updateStatus(v.withStatus(v.status().withClaims(List.of(claim))));
  }

  private static Volume volume(ObjectRegistry api) {
    return api.create(
        new Volume(
            ObjectMeta.named("v"),
            new VolumeSpec("hostpath", 1 << 20, AccessMode.SingleNodeWriter, Map.of()),
            VolumeStatus.EMPTY));
  }

  private static Volume moved(ObjectRegistry api, Volume v, VolumeClaimEvent e) {
    var next =
        ((VolumeClaimMove.Moved) VolumeClaimMachine.apply(v.status().claims().getFirst(), e))
            .claim();
    return api.updateStatus(v.withStatus(v.status().withClaims(List.of(next))));
  }

  /** The controller's stale plan, written: the task finished after the claim it held was freed. */
  private static Volume staleGrant(ObjectRegistry api) {
    var t = inPhase(api, api.create(task("node-1")), TaskPhase.Scheduled);
    t = inPhase(api, t, TaskPhase.Running);
    var v = granted(api, volume(api), t, "node-1");
    var stale = t; // what the lagging task cache still says: Running
    inPhase(api, t, TaskPhase.Succeeded);
    v = moved(api, v, new VolumeClaimEvent.NodeReleased());
    v = moved(api, v, new VolumeClaimEvent.ControllerReleased());
    v = api.updateStatus(v.withStatus(v.status().withClaims(List.of()))); // released: Free
    return granted(api, v, stale, "node-1");
  }

  @Test
  void aFinishedTaskIsNotGrantedTheVolumeAgain() {
    var api = new ObjectRegistry(store, env);
    assertThatThrownBy(() -> staleGrant(api))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.is(Reason.Conflict)).isTrue();
              assertThat(e.getMessage())
                  .contains("claim for task t on node-1 is refused: it has Succeeded");
            });
    assertThat(api.get(Kinds.VOLUME, "v").orElseThrow().status().claims()).isEmpty();
  }

  @Test
  void withoutTheRuleTheStaleGrantLands() {
    var naive = ObjectRegistry.withoutCrossObjectRules(store, env);
    assertThat(staleGrant(naive).status().claims())
        .extracting(VolumeClaim::task)
        .containsExactly("t");
  }

  @Test
  void aGrantNamesALiveIncarnationBoundToTheClaimsNode() {
    var api = new ObjectRegistry(store, env);
    var v = volume(api);
    var ghost = task("node-1");
    assertThatThrownBy(() -> granted(api, v, ghost, "node-1"))
        .hasMessageContaining("it does not exist");
    var held = task("node-1");
    var t =
        api.create(
            held.withMetadata(
                held.metadata().withFinalizers(List.of("test.quartermaster.dev/hold"))));
    assertThatThrownBy(() -> granted(api, v, t, "node-2"))
        .hasMessageContaining("it is bound to node-1, not node-2");
    var old = t.withMetadata(t.metadata().withUid("uid-of-an-earlier-t"));
    assertThatThrownBy(() -> granted(api, v, old, "node-1"))
        .hasMessageContaining("it was re-created");
    api.delete(Kinds.TASK, "t");
    var deleting = api.get(Kinds.TASK, "t").orElseThrow();
    assertThatThrownBy(() -> granted(api, v, deleting, "node-1"))
        .hasMessageContaining("it is being deleted");
    assertThat(api.get(Kinds.VOLUME, "v").orElseThrow().status().claims()).isEmpty();
  }

  @Test
  void claimsAlreadyHeldMoveOnAfterTheirTaskFinished() {
    var api = new ObjectRegistry(store, env);
    var t = inPhase(api, api.create(task("node-1")), TaskPhase.Scheduled);
    var v = granted(api, volume(api), t, "node-1");
    inPhase(api, t, TaskPhase.Failed);
    var released = moved(api, v, new VolumeClaimEvent.NodeReleased());
    assertThat(released.status().claims().getFirst().state())
        .isEqualTo(VolumeClaim.State.NodeDetached);
  }
}
