package dev.quartermaster.control.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.VolumeRetention;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.control.cluster.Labels;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SurplusVolumesTest {
  private static final String UID = "w-uid";

  @Test
  void onlyVolumesOfSlotsAboveReplicasWhoseTaskIsGoneAreSurplus() {
    var volumes =
        List.of(
            volume(0, UID), volume(1, UID), volume(2, UID), volume(3, UID), volume(4, "other-uid"));
    var tasks = List.of(task(0, false), task(2, true)); // slot 2's task is still being deleted
    assertThat(
            SurplusVolumes.surplus(
                "train",
                "workers",
                UID,
                Optional.of(group(1, VolumeRetention.Delete)),
                volumes,
                tasks))
        .extracting(v -> v.metadata().name())
        .containsExactly("train-workers-1-scratch", "train-workers-3-scratch");
  }

  @Test
  void retainKeepsEverything() {
    var volumes = List.of(volume(1, UID), volume(2, UID));
    assertThat(
            SurplusVolumes.surplus(
                "train",
                "workers",
                UID,
                Optional.of(group(0, VolumeRetention.Retain)),
                volumes,
                List.of()))
        .isEmpty();
  }

  @Test
  void aRemovedGroupsVolumesFollowTheDefaultOnceItsTasksAreGone() {
    var deleting =
        volume(1, UID).withMetadata(volume(1, UID).metadata().withDeletedAt(Instant.EPOCH));
    var volumes = List.of(volume(0, UID), deleting);
    assertThat(
            SurplusVolumes.surplus("train", "workers", UID, Optional.empty(), volumes, List.of()))
        .extracting(v -> v.metadata().name())
        .containsExactly("train-workers-0-scratch");
    assertThat(
            SurplusVolumes.surplus(
                "train", "workers", UID, Optional.empty(), volumes, List.of(task(0, true))))
        .isEmpty();
  }

  private static WorkerGroup group(int replicas, VolumeRetention retention) {
    return new WorkerGroup(
        "workers", replicas, TaskTemplate.EMPTY, List.of(), null, List.of(), retention);
  }

  private static Volume volume(int ordinal, String ownerUid) {
    var meta =
        ObjectMeta.named("train-workers-" + ordinal + "-scratch")
            .withLabels(
                Map.of(
                    Labels.WORKLOAD,
                    "train",
                    Labels.GROUP,
                    "workers",
                    Labels.ORDINAL,
                    Integer.toString(ordinal)))
            .withOwner(new OwnerReference("Workload", "train", ownerUid));
    return new Volume(meta, VolumeSpec.EMPTY, VolumeStatus.EMPTY);
  }

  private static Task task(int ordinal, boolean deleting) {
    var meta = ObjectMeta.named("train-workers-" + ordinal);
    return new Task(
        deleting ? meta.withDeletedAt(Instant.EPOCH) : meta, TaskSpec.EMPTY, TaskStatus.EMPTY);
  }
}
