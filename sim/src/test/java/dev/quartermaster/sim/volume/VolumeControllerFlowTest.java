package dev.quartermaster.sim.volume;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.volume.VolumeController;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.sim.SimCluster;
import dev.quartermaster.sim.WatchFaults;
import dev.quartermaster.sim.csi.SimCsiPlugin;
import dev.quartermaster.sim.csi.SimStorage;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The volume controller's half of the claim machine, with the test doing the agents' half by hand
 * (NodeDetached after the task ended): create, grant by access mode, ControllerPublish, release
 * step by step, hand-over to the waiting writer, delete only once free. The agents' half is covered
 * by the whole-cluster tests.
 */
class VolumeControllerFlowTest {
  static final String PLUGIN = "hostpath.csi.quartermaster.dev";

  @Test
  void aSingleWriterVolumeChangesHandsOnlyAfterEveryReleaseStepAndIsDeletedOnlyWhenFree() {
    var c = new SimCluster(7, WatchFaults.NONE);
    var storage = new SimStorage(PLUGIN, true);
    start(c, storage);

    c.api()
        .create(
            new Volume(
                ObjectMeta.named("data"),
                new VolumeSpec(PLUGIN, 1 << 20, AccessMode.SingleNodeWriter, Map.of()),
                VolumeStatus.EMPTY));
    assertThat(
            c.runUntil(
                () -> volume(c).status().phase() == VolumePhase.Available, Duration.ofSeconds(30)))
        .isTrue();
    assertThat(volume(c).metadata().finalizers()).contains(Volume.RELEASE_FINALIZER);

    var first = task(c, "first", "node-1");
    c.env().advance(Duration.ofMillis(1));
    var second = task(c, "second", "node-2");
    assertThat(
            c.runUntil(
                () -> claims(c).size() == 1 && claims(c).getFirst().attached(),
                Duration.ofSeconds(30)))
        .isTrue();
    assertThat(claims(c).getFirst().task()).isEqualTo("first");
    c.env().advance(Duration.ofSeconds(30));
    assertThat(claims(c)).extracting(VolumeClaim::task).containsExactly("first");
    assertThat(storage.attachedTo(volume(c).status().externalId())).containsExactly("node-1");

    // A delete now only marks it: the claim holds it.
    c.api().delete(Kinds.VOLUME, "data");
    finish(c, first);
    c.env().advance(Duration.ofSeconds(30));
    assertThat(claims(c)).extracting(VolumeClaim::state).containsExactly(VolumeClaim.State.Taken);
    // The agent of node-1 unpublished and unstaged: NodeDetached.
    c.api()
        .updateStatus(
            volume(c)
                .withStatus(
                    volume(c).status().withClaims(List.of(released(claims(c).getFirst())))));
    // Deleting: the second writer gets no claim; once the first is free, the volume goes.
    assertThat(
            c.runUntil(() -> c.api().get(Kinds.VOLUME, "data").isEmpty(), Duration.ofSeconds(60)))
        .isTrue();
    assertThat(storage.volumeIds()).isEmpty();
    assertThat(storage.overlaps()).isZero();
    assertThat(second.metadata().name()).isEqualTo("second");
  }

  @Test
  void theWaitingWriterGetsTheVolumeOnItsNodeOnceTheFirstIsFree() {
    var c = new SimCluster(8, WatchFaults.NONE);
    var storage = new SimStorage(PLUGIN, true);
    start(c, storage);
    c.api()
        .create(
            new Volume(
                ObjectMeta.named("data"),
                new VolumeSpec(PLUGIN, 1 << 20, AccessMode.SingleNodeWriter, Map.of()),
                VolumeStatus.EMPTY));
    var first = task(c, "first", "node-1");
    c.env().advance(Duration.ofMillis(1));
    task(c, "second", "node-2");
    assertThat(
            c.runUntil(
                () -> claims(c).size() == 1 && claims(c).getFirst().attached(),
                Duration.ofSeconds(30)))
        .isTrue();
    finish(c, first);
    c.env().advance(Duration.ofSeconds(5));
    c.api()
        .updateStatus(
            volume(c)
                .withStatus(
                    volume(c).status().withClaims(List.of(released(claims(c).getFirst())))));
    assertThat(
            c.runUntil(
                () ->
                    claims(c).size() == 1
                        && claims(c).getFirst().task().equals("second")
                        && claims(c).getFirst().attached(),
                Duration.ofSeconds(30)))
        .isTrue();
    assertThat(storage.attachedTo(volume(c).status().externalId())).containsExactly("node-2");
    assertThat(storage.overlaps()).isZero();
  }

  /**
   * Seed 839 of the whole-cluster campaign: a task re-created under the same name lands on the node
   * where its old incarnation still runs (the node was partitioned while it was deleted), both
   * readers of one attachment there. The new one's claim is released first; detaching the volume
   * from the node (ControllerUnpublish is per node) would pull it from under the old process.
   */
  @Test
  void releasingOneOfTwoClaimsOnANodeLeavesTheVolumeAttachedForTheOther() {
    var c = new SimCluster(9, WatchFaults.NONE);
    var storage = new SimStorage(PLUGIN, true);
    start(c, storage);
    c.api()
        .create(
            new Volume(
                ObjectMeta.named("data"),
                new VolumeSpec(PLUGIN, 1 << 20, AccessMode.MultiNodeReaderOnly, Map.of()),
                VolumeStatus.EMPTY));
    var old = reader(c, "old", "node-1");
    c.env().advance(Duration.ofMillis(1));
    var young = reader(c, "young", "node-1");
    assertThat(
            c.runUntil(
                () -> claims(c).size() == 2 && claims(c).stream().allMatch(VolumeClaim::attached),
                Duration.ofSeconds(30)))
        .isTrue();

    finish(c, young);
    c.env().advance(Duration.ofSeconds(5));
    c.api()
        .updateStatus(
            volume(c)
                .withStatus(
                    volume(c)
                        .status()
                        .withClaims(
                            claims(c).stream()
                                .map(k -> k.task().equals("young") ? released(k) : k)
                                .toList())));
    assertThat(c.runUntil(() -> claims(c).size() == 1, Duration.ofSeconds(30))).isTrue();
    c.env().advance(Duration.ofSeconds(30));
    assertThat(claims(c)).extracting(VolumeClaim::task).containsExactly("old");
    assertThat(storage.attachedTo(volume(c).status().externalId()))
        .as("still attached for old's process")
        .containsExactly("node-1");

    finish(c, old);
    c.env().advance(Duration.ofSeconds(5));
    c.api()
        .updateStatus(
            volume(c)
                .withStatus(
                    volume(c).status().withClaims(List.of(released(claims(c).getFirst())))));
    assertThat(c.runUntil(() -> claims(c).isEmpty(), Duration.ofSeconds(30))).isTrue();
    assertThat(storage.attachedTo(volume(c).status().externalId()))
        .as("the last claim's release detaches it")
        .isEmpty();
  }

  /**
   * Seed 77 of the whole-cluster campaign: the controller's ControllerPublish succeeded but the
   * claim was released by its agent before the controller recorded it attached. The volume is
   * attached all the same: the release must still call ControllerUnpublish, or the volume stays on
   * that node and its next writer elsewhere waits forever.
   */
  @Test
  void aClaimReleasedBeforeItsPublishWasRecordedIsStillUnpublished() {
    var c = new SimCluster(10, WatchFaults.NONE);
    var storage = new SimStorage(PLUGIN, true);
    start(c, storage);
    c.api()
        .create(
            new Volume(
                ObjectMeta.named("data"),
                new VolumeSpec(PLUGIN, 1 << 20, AccessMode.SingleNodeWriter, Map.of()),
                VolumeStatus.EMPTY));
    var first = task(c, "first", "node-1");
    assertThat(
            c.runUntil(
                () -> claims(c).size() == 1 && claims(c).getFirst().attached(),
                Duration.ofSeconds(30)))
        .isTrue();
    finish(c, first);
    c.env().advance(Duration.ofSeconds(5));
    // Released as the agent does it when it never saw the attachment recorded.
    var unrecorded = claims(c).getFirst();
    c.api()
        .updateStatus(
            volume(c)
                .withStatus(
                    volume(c)
                        .status()
                        .withClaims(
                            List.of(
                                new VolumeClaim(
                                    unrecorded.task(),
                                    unrecorded.taskUid(),
                                    unrecorded.node(),
                                    unrecorded.mode(),
                                    VolumeClaim.State.NodeDetached,
                                    false,
                                    Map.of())))));
    assertThat(c.runUntil(() -> claims(c).isEmpty(), Duration.ofSeconds(30))).isTrue();
    assertThat(storage.attachedTo(volume(c).status().externalId()))
        .as("detached from node-1")
        .isEmpty();
  }

  /** As the agent records it once it unpublished and unstaged the claim. */
  static VolumeClaim released(VolumeClaim k) {
    return VolumeClaimMachine.apply(k, new VolumeClaimEvent.NodeReleased()).orThrow();
  }

  static Task reader(SimCluster c, String name, String node) {
    var spec =
        new TaskSpec(
            Optional.of(node),
            List.of("run"),
            Map.of(),
            List.of(),
            List.of(VolumeUse.reader("data")),
            "exec",
            Optional.empty());
    return c.api().create(new Task(ObjectMeta.named(name), spec, TaskStatus.EMPTY));
  }

  static void start(SimCluster c, SimStorage storage) {
    var plugins = new HashMap<String, SimCsiPlugin>();
    for (var n : List.of("node-1", "node-2")) {
      c.registerNode(n);
      plugins.put(n, new SimCsiPlugin(c.env(), storage, n, true, Duration.ofMillis(50)));
      c.updateStatus(
          n,
          node ->
              node.withStatus(
                  node.status()
                      .withPlugins(
                          List.of(
                              new PluginInstance(
                                  PLUGIN,
                                  "unix:///sim/" + n + ".sock",
                                  "sim-1",
                                  Set.of(PluginRole.Controller, PluginRole.Node),
                                  true,
                                  "",
                                  n)))));
    }
    var informers = new Informers(c.env(), c.api());
    var controller =
        new VolumeController(
            c.env(),
            c.api(),
            informers,
            (node, inst) -> plugins.get(node),
            new KeyedSerializer<>(c.env()));
    informers.start();
    controller.startLeading();
    controller.loop().start();
  }

  static Volume volume(SimCluster c) {
    return c.api().get(Kinds.VOLUME, "data").orElseThrow();
  }

  static List<VolumeClaim> claims(SimCluster c) {
    return c.api().get(Kinds.VOLUME, "data").map(v -> v.status().claims()).orElse(List.of());
  }

  static Task task(SimCluster c, String name, String node) {
    var spec =
        new TaskSpec(
            Optional.of(node),
            List.of("run"),
            Map.of(),
            List.of(),
            List.of(VolumeUse.writer("data")),
            "exec",
            Optional.empty());
    return c.api().create(new Task(ObjectMeta.named(name), spec, TaskStatus.EMPTY));
  }

  /**
   * The task ran and exited 0; no scheduler runs here, so it is scheduled first (the store runs no
   * task that was not).
   */
  static void finish(SimCluster c, Task t) {
    var now = c.api().get(Kinds.TASK, t.metadata().name()).orElseThrow();
    if (now.status().phase() == TaskPhase.Pending) {
      now =
          c.api()
              .updateStatus(
                  now.withStatus(
                      TaskTransitions.scheduled(
                          now.status(), now.spec().node().orElseThrow(), "")));
    }
    var s = now.status();
    c.api()
        .updateStatus(
            now.withStatus(
                new TaskStatus(
                    TaskPhase.Succeeded,
                    "Exited",
                    "",
                    s.node(),
                    s.deviceCheck(),
                    Optional.of(0),
                    s.startedAt(),
                    Optional.of(c.env().now()),
                    s.conditions())));
  }
}
