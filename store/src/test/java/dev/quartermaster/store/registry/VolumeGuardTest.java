package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaim.Mode;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
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
 * A volume cannot be taken from under its tasks by a plain write: its finalizer stays while it is
 * held, its spec is fixed, and a claim leaves its list only once the claim machine frees it. The
 * registry without the rules (the naive store) takes each of these writes.
 */
class VolumeGuardTest {
  private static final VolumeSpec SPEC =
      new VolumeSpec(
          "hostpath.csi.quartermaster.dev", 1L << 30, AccessMode.SingleNodeWriter, Map.of());

  @TempDir Path dir;
  Store store;
  ObjectRegistry api;
  ObjectRegistry naive;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    var env = new DeterministicEnv(5);
    api = new ObjectRegistry(store, env);
    naive = ObjectRegistry.withoutCrossObjectRules(store, env);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** A task bound to {@code node}: a claim is granted only to such a one (the store reads it). */
  private Task task(String name, String node) {
    return api.create(
        new Task(
            ObjectMeta.named(name),
            new TaskSpec(
                Optional.of(node),
                List.of("train"),
                Map.of(),
                List.of(),
                List.of(VolumeUse.writer("data")),
                "exec",
                Optional.empty()),
            TaskStatus.EMPTY));
  }

  /** A created volume whose writer on node-1 holds it: Taken, attached. */
  private Volume held() {
    var v = api.create(new Volume(ObjectMeta.named("data"), SPEC, VolumeStatus.EMPTY));
    var writer = task("train-0", "node-1");
    var taken = VolumeClaimMachine.grant("train-0", writer.metadata().uid(), "node-1", Mode.Write);
    var attached =
        VolumeClaimMachine.apply(taken, new VolumeClaimEvent.Attached(Map.of())).orThrow();
    return api.updateStatus(
        v.withStatus(
            new VolumeStatus(
                VolumePhase.Available, "vol-1", 1L << 30, List.of(attached), List.of())));
  }

  private static Volume withClaims(Volume v, List<VolumeClaim> claims) {
    return v.withStatus(v.status().withClaims(claims));
  }

  private static VolumeClaim moved(VolumeClaim c, VolumeClaimEvent e) {
    return VolumeClaimMachine.apply(c, e).orThrow();
  }

  @Test
  void theFinalizerStaysWhileTheVolumeIsHeld() {
    var v = held();
    assertThat(v.metadata().finalizers()).containsExactly(Volume.RELEASE_FINALIZER);
    var refused =
        catchThrowableOfType(
            ApiException.class,
            () -> api.update(v.withMetadata(v.metadata().withFinalizers(List.of()))));
    assertThat(refused.getMessage())
        .contains("metadata.finalizers", "while the volume has claims or exists in its plugin");
    assertThat(
            naive
                .update(v.withMetadata(v.metadata().withFinalizers(List.of())))
                .metadata()
                .finalizers())
        .isEmpty();
  }

  @Test
  void theSpecIsFixed() {
    var v = held();
    var readers =
        v.withSpec(
            new VolumeSpec(
                SPEC.plugin(), SPEC.capacityBytes(), AccessMode.MultiNodeMultiWriter, Map.of()));
    assertThat(catchThrowableOfType(ApiException.class, () -> api.update(readers)).getMessage())
        .contains("spec", "is fixed");
  }

  /**
   * Seed 77's shape: a writer released on its node but not yet detached by the controller still has
   * the volume attached there; dropped from the list, it would let the next writer elsewhere in.
   */
  @Test
  void aClaimLeavesTheListOnlyOnceTheControllerDetachedIt() {
    var v = held();
    var taken = v.status().claims().getFirst();
    var refused =
        catchThrowableOfType(ApiException.class, () -> api.updateStatus(withClaims(v, List.of())));
    assertThat(refused.getMessage()).contains("status.claims", "train-0 (Taken)");

    var nodeDetached =
        api.updateStatus(withClaims(v, List.of(moved(taken, new VolumeClaimEvent.NodeReleased()))));
    var next =
        VolumeClaimMachine.grant(
            "train-1", task("train-1", "node-2").metadata().uid(), "node-2", Mode.Write);
    assertThat(
            catchThrowableOfType(
                    ApiException.class,
                    () -> api.updateStatus(withClaims(nodeDetached, List.of(next))))
                .getMessage())
        .contains("train-0 (NodeDetached)");

    var released = nodeDetached.status().claims().getFirst();
    var controllerDetached =
        api.updateStatus(
            withClaims(
                nodeDetached, List.of(moved(released, new VolumeClaimEvent.ControllerReleased()))));
    var handedOver = api.updateStatus(withClaims(controllerDetached, List.of(next)));
    assertThat(handedOver.status().claims())
        .extracting(VolumeClaim::task)
        .containsExactly("train-1");
  }

  @Test
  void theNaiveStoreDropsAClaimThatStillHoldsTheVolume() {
    var v = held();
    assertThat(naive.updateStatus(withClaims(v, List.of())).status().claims()).isEmpty();
  }

  /**
   * A claim's steps are the writers' (the server judges an agent's); the store only keeps it
   * listed.
   */
  @Test
  void aClaimThatMovesStaysListedAndItsStepsAreTaken() {
    var v = held();
    var taken = v.status().claims().getFirst();
    var failing =
        api.updateStatus(
            withClaims(v, List.of(moved(taken, new VolumeClaimEvent.ReleaseFailed("busy")))));
    var gone =
        api.updateStatus(
            withClaims(
                failing,
                List.of(
                    moved(failing.status().claims().getFirst(), new VolumeClaimEvent.NodeGone()))));
    assertThat(gone.status().claims())
        .extracting(VolumeClaim::state)
        .containsExactly(VolumeClaim.State.NodeDetached);
    assertThat(
            api.get(Kinds.VOLUME, "data").orElseThrow().status().claims().getFirst().releaseError())
        .isEmpty();
  }
}
