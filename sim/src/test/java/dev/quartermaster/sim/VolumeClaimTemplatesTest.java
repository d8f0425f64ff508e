package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.VolumeClaimTemplate;
import dev.quartermaster.api.workload.VolumeRetention;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.control.volume.PluginConnector;
import dev.quartermaster.control.volume.VolumeController;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import dev.quartermaster.core.serial.KeyedSerializer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A worker group's volume claim templates, under the incident's stale cache: one volume per slot,
 * made before the slot's task and named in its spec, kept across the slot's tasks; scale-down and
 * workload deletion delete them ({@code Delete}) or keep them ({@code Retain}, orphaned on workload
 * deletion and adopted by the next workload of the name). At every step no task names a template
 * volume that does not exist.
 */
class VolumeClaimTemplatesTest {
  private static final Duration SETTLE = Duration.ofSeconds(60);
  private static final String PLUGIN = "hostpath.csi.quartermaster.dev";

  @Test
  void eachSlotGetsItsVolumeBeforeItsTaskAndKeepsItAcrossTasks() {
    for (long seed : SimCluster.seeds(5)) {
      var c = world(seed);
      var missing = new AtomicReference<String>();
      c.api().create(workload("train", 3, VolumeRetention.Delete));
      assertThat(run(c, missing, () -> tasks(c) == 3)).as("seed %d", seed).isTrue();
      for (int i = 0; i < 3; i++) {
        var v = volume(c, "train-workers-" + i + "-scratch").orElseThrow();
        assertThat(v.spec().capacityBytes()).isEqualTo(100L << 20);
        assertThat(v.metadata().owner().orElseThrow().name()).isEqualTo("train");
        assertThat(v.metadata().labels())
            .containsEntry(Labels.WORKLOAD, "train")
            .containsEntry(Labels.GROUP, "workers")
            .containsEntry(Labels.ORDINAL, Integer.toString(i));
        assertThat(c.api().get(Kinds.TASK, "train-workers-" + i).orElseThrow().spec().volumes())
            .containsExactly(
                VolumeUse.reader("dataset"),
                new VolumeUse("train-workers-" + i + "-scratch", false, "scratch"));
      }
      // A replaced task finds the same volume.
      var uid = volume(c, "train-workers-1-scratch").orElseThrow().metadata().uid();
      var oldTask = c.api().get(Kinds.TASK, "train-workers-1").orElseThrow().metadata().uid();
      c.api().delete(Kinds.TASK, "train-workers-1");
      assertThat(
              run(
                  c,
                  missing,
                  () ->
                      c.api()
                          .get(Kinds.TASK, "train-workers-1")
                          .filter(t -> !t.metadata().uid().equals(oldTask))
                          .isPresent()))
          .as("seed %d", seed)
          .isTrue();
      assertThat(volume(c, "train-workers-1-scratch").orElseThrow().metadata().uid())
          .isEqualTo(uid);
      assertThat(missing.get())
          .as("seed %d: a task named a volume that was not there", seed)
          .isNull();
    }
  }

  @Test
  void scaleDownDeletesTheVolumesOfRemovedSlotsUnderDelete() {
    for (long seed : SimCluster.seeds(5)) {
      var c = world(seed);
      var missing = new AtomicReference<String>();
      c.api().create(workload("train", 3, VolumeRetention.Delete));
      assertThat(run(c, missing, () -> tasks(c) == 3)).isTrue();
      c.scale("train", 1);
      assertThat(
              run(
                  c,
                  missing,
                  () ->
                      tasks(c) == 1
                          && volume(c, "train-workers-1-scratch").isEmpty()
                          && volume(c, "train-workers-2-scratch").isEmpty()))
          .as("seed %d", seed)
          .isTrue();
      assertThat(volume(c, "train-workers-0-scratch")).isPresent();
      // Back up: the slots get new volumes.
      c.scale("train", 3);
      assertThat(
              run(
                  c,
                  missing,
                  () -> tasks(c) == 3 && volume(c, "train-workers-2-scratch").isPresent()))
          .as("seed %d", seed)
          .isTrue();
      assertThat(missing.get()).as("seed %d", seed).isNull();
    }
  }

  @Test
  void scaleDownKeepsTheVolumesUnderRetainAndAScaleUpReusesThem() {
    for (long seed : SimCluster.seeds(5)) {
      var c = world(seed);
      var missing = new AtomicReference<String>();
      c.api().create(workload("train", 3, VolumeRetention.Retain));
      assertThat(run(c, missing, () -> tasks(c) == 3)).isTrue();
      var uid = volume(c, "train-workers-2-scratch").orElseThrow().metadata().uid();
      c.scale("train", 1);
      assertThat(run(c, missing, () -> tasks(c) == 1)).as("seed %d", seed).isTrue();
      c.runUntil(() -> false, Duration.ofSeconds(10));
      assertThat(volume(c, "train-workers-2-scratch").orElseThrow().metadata().uid())
          .isEqualTo(uid);
      c.scale("train", 3);
      assertThat(run(c, missing, () -> tasks(c) == 3)).as("seed %d", seed).isTrue();
      assertThat(volume(c, "train-workers-2-scratch").orElseThrow().metadata().uid())
          .isEqualTo(uid);
      assertThat(missing.get()).as("seed %d", seed).isNull();
    }
  }

  @Test
  void deletingTheWorkloadDeletesItsVolumesUnderDelete() {
    for (long seed : SimCluster.seeds(5)) {
      var c = world(seed);
      var missing = new AtomicReference<String>();
      c.api().create(workload("train", 2, VolumeRetention.Delete));
      assertThat(run(c, missing, () -> tasks(c) == 2)).isTrue();
      c.api().delete(Kinds.WORKLOAD, "train");
      assertThat(
              run(
                  c,
                  missing,
                  () ->
                      c.api().get(Kinds.WORKLOAD, "train").isEmpty()
                          && volume(c, "train-workers-0-scratch").isEmpty()
                          && volume(c, "train-workers-1-scratch").isEmpty()))
          .as("seed %d", seed)
          .isTrue();
      assertThat(volume(c, "dataset")).as("a shared volume is not the workload's").isPresent();
    }
  }

  @Test
  void deletingTheWorkloadOrphansItsVolumesUnderRetainAndTheNextOneAdoptsThem() {
    for (long seed : SimCluster.seeds(5)) {
      var c = world(seed);
      var missing = new AtomicReference<String>();
      c.api().create(workload("train", 2, VolumeRetention.Retain));
      assertThat(run(c, missing, () -> tasks(c) == 2)).isTrue();
      var uid = volume(c, "train-workers-0-scratch").orElseThrow().metadata().uid();
      c.api().delete(Kinds.WORKLOAD, "train");
      assertThat(run(c, missing, () -> c.api().get(Kinds.WORKLOAD, "train").isEmpty()))
          .as("seed %d", seed)
          .isTrue();
      var kept = volume(c, "train-workers-0-scratch").orElseThrow();
      assertThat(kept.metadata().uid()).isEqualTo(uid);
      assertThat(kept.metadata().owner()).as("orphaned").isEmpty();
      assertThat(kept.metadata().isDeleting()).isFalse();

      var again = c.api().create(workload("train", 2, VolumeRetention.Retain));
      assertThat(run(c, missing, () -> tasks(c) == 2)).as("seed %d", seed).isTrue();
      var adopted = volume(c, "train-workers-0-scratch").orElseThrow();
      assertThat(adopted.metadata().uid()).isEqualTo(uid);
      assertThat(adopted.metadata().owner().orElseThrow().uid()).isEqualTo(again.metadata().uid());
      assertThat(missing.get()).as("seed %d", seed).isNull();
    }
  }

  @Test
  void aVolumeNameHeldByAnotherIsReportedAndTheRestOfTheGroupGoesOn() {
    var c = world(1);
    var handMade =
        new Volume(
            ObjectMeta.named("train-workers-1-scratch"),
            new VolumeSpec(PLUGIN, 1, VolumeSpec.AccessMode.SingleNodeWriter, Map.of()),
            VolumeStatus.EMPTY);
    c.api().create(handMade);
    c.api().create(workload("train", 3, VolumeRetention.Delete));
    assertThat(c.runUntil(() -> tasks(c) == 2 && nameTaken(c).isPresent(), SETTLE)).isTrue();
    assertThat(nameTaken(c).orElseThrow())
        .contains("volume train-workers-1-scratch")
        .contains("nobody (made by hand)");
    assertThat(c.api().get(Kinds.TASK, "train-workers-1")).isEmpty();
    c.api().delete(Kinds.VOLUME, "train-workers-1-scratch");
    assertThat(c.runUntil(() -> tasks(c) == 3 && nameTaken(c).isEmpty(), SETTLE)).isTrue();
    assertThat(volume(c, "train-workers-1-scratch").orElseThrow().metadata().owner()).isPresent();
  }

  private static SimCluster world(long seed) {
    var c = new SimCluster(seed, WatchFaults.staleCache());
    c.api()
        .create(
            new Volume(
                ObjectMeta.named("dataset"),
                new VolumeSpec(
                    PLUGIN, 1L << 30, VolumeSpec.AccessMode.MultiNodeReaderOnly, Map.of()),
                VolumeStatus.EMPTY));
    var inf = new Informers(c.env(), c.api());
    // No plugin in this world: volumes are never created in one, so a delete only waits for the
    // finalizer.
    var volumes =
        new VolumeController(
            c.env(), c.api(), inf, PluginConnector.NONE, new KeyedSerializer<>(c.env()));
    var loops =
        List.of(
            new WorkloadController(
                    c.env(),
                    c.api(),
                    inf,
                    WorkloadOptions.of(WorkloadController.DEFAULT_EXPECTATION_BOUND))
                .loop(),
            new TaskController(c.env(), c.api(), inf).loop(),
            volumes.loop());
    inf.start();
    volumes.startLeading();
    loops.forEach(ControlLoop::start);
    return c;
  }

  /**
   * Runs until {@code done}, noting in {@code missing} any task that names a template volume not in
   * the store.
   */
  private static boolean run(SimCluster c, AtomicReference<String> missing, BooleanSupplier done) {
    return c.runUntil(
        () -> {
          for (var t : c.api().list(Kinds.TASK, LabelSelector.ALL).items()) {
            for (var u : t.spec().volumes()) {
              if (volume(c, u.name()).isEmpty() && !t.metadata().isDeleting()) {
                missing.compareAndSet(null, t.metadata().name() + " -> " + u.name());
              }
            }
          }
          return done.getAsBoolean();
        },
        SETTLE);
  }

  private static long tasks(SimCluster c) {
    return c.api().list(Kinds.TASK, LabelSelector.ALL).items().stream()
        .filter(t -> !t.metadata().isDeleting())
        .count();
  }

  private static Optional<Volume> volume(SimCluster c, String name) {
    return c.api().get(Kinds.VOLUME, name);
  }

  private static Optional<String> nameTaken(SimCluster c) {
    return c.api()
        .get(Kinds.WORKLOAD, "train")
        .flatMap(w -> Condition.find(w.status().conditions(), WorkloadConditions.TASKS_CREATED))
        .filter(x -> !x.isTrue() && x.reason().equals(WorkloadConditions.NAME_TAKEN))
        .map(Condition::message);
  }

  private static Workload workload(String name, int replicas, VolumeRetention retention) {
    var template =
        new TaskTemplate(
            List.of("train"),
            Map.of(),
            "exec",
            Optional.empty(),
            List.of(VolumeUse.reader("dataset")),
            Map.of());
    var scratch =
        new VolumeClaimTemplate(
            "scratch",
            new VolumeSpec(PLUGIN, 100L << 20, VolumeSpec.AccessMode.SingleNodeWriter, Map.of()));
    var g =
        new WorkerGroup(
            "workers", replicas, template, List.of(), null, List.of(scratch), retention);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(g), Optional.empty()),
        WorkloadStatus.EMPTY);
  }
}
