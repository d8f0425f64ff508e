package dev.quartermaster.cli.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a drain stops and what it waits for, on one view of the cluster. */
class DrainStateTest {
  private static Task task(
      String name, String node, TaskPhase phase, boolean ofWorkload, String... claims) {
    var meta = ObjectMeta.named(name);
    if (ofWorkload) {
      meta = meta.withOwner(new OwnerReference("Workload", "w", "uid-w"));
    }
    var spec =
        new TaskSpec(
            Optional.of(node),
            List.of("true"),
            Map.of(),
            List.of(claims),
            List.of(),
            "exec",
            Optional.empty());
    var s = TaskStatus.EMPTY;
    return new Task(
        meta,
        spec,
        new TaskStatus(
            phase,
            "",
            "",
            Optional.of(node),
            s.deviceCheck(),
            s.exitCode(),
            s.startedAt(),
            s.finishedAt(),
            s.conditions()));
  }

  private static ResourceClaim claim(String name, String node) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        ResourceClaimSpec.EMPTY,
        ResourceClaimStatus.EMPTY.withAllocation(
            new Allocation(node, List.of(new Allocation.AllocatedDevice("gpu", "gpu-0")))));
  }

  private static Volume volume(String name, String task, String node) {
    var hold =
        new VolumeClaim(
            task,
            "uid-" + task,
            node,
            VolumeClaim.Mode.Write,
            VolumeClaim.State.Taken,
            true,
            Map.of());
    return new Volume(
        ObjectMeta.named(name), VolumeSpec.EMPTY, VolumeStatus.EMPTY.withClaims(List.of(hold)));
  }

  @Test
  void stopsEveryTaskOnTheNodeAndWaitsForWhatTheyHold() {
    var state =
        DrainState.of(
            "n1",
            List.of(
                task("a", "n1", TaskPhase.Running, true, "a-gpu"),
                task("b", "n2", TaskPhase.Running, true, "b-gpu")),
            List.of(claim("a-gpu", "n1"), claim("b-gpu", "n2")),
            List.of(volume("v", "a", "n1"), volume("w", "b", "n2")));
    assertThat(state.tasks()).extracting(t -> t.metadata().name()).containsExactly("a");
    assertThat(state.claims()).containsExactly("a-gpu");
    assertThat(state.volumeClaims()).containsExactly("v/a");
    assertThat(state.standalone()).isEmpty();
    assertThat(state.empty()).isFalse();
  }

  @Test
  void aFinishedTaskOfAWorkloadIsStoppedSinceItsClaimsAreHeldUntilItIsReplaced() {
    var state =
        DrainState.of(
            "n1",
            List.of(task("a", "n1", TaskPhase.Failed, true, "a-gpu")),
            List.of(claim("a-gpu", "n1")),
            List.of());
    assertThat(state.tasks()).extracting(t -> t.metadata().name()).containsExactly("a");
    assertThat(state.claims()).containsExactly("a-gpu");
    // The naive reading (only unfinished tasks) would call the node empty while a-gpu holds a GPU
    // there.
    var naive = state.tasks().stream().filter(t -> !t.status().phase().isFinished()).toList();
    assertThat(naive).isEmpty();
  }

  @Test
  void standAloneTasksAreNamedAndAFinishedOneIsLeftWithWhatItHolds() {
    var state =
        DrainState.of(
            "n1",
            List.of(
                task("s", "n1", TaskPhase.Running, false),
                task("done", "n1", TaskPhase.Succeeded, false, "d-gpu")),
            List.of(claim("d-gpu", "n1"), claim("spare", "n1")),
            List.of(volume("v", "done", "n1")));
    assertThat(state.standalone()).containsExactly("s");
    assertThat(state.tasks()).extracting(t -> t.metadata().name()).containsExactly("s");
    assertThat(state.claims()).isEmpty();
    assertThat(state.idleClaims()).containsExactlyInAnyOrder("d-gpu", "spare");
    assertThat(state.volumeClaims()).as("the finished task's hold is not waited for").isEmpty();
  }

  @Test
  void aReplacementElsewhereUnderTheSameNameIsNotOnTheNode() {
    var state =
        DrainState.of(
            "n1",
            List.of(task("a", "n2", TaskPhase.Running, true, "a-gpu")),
            List.of(claim("a-gpu", "n2")),
            List.of(volume("v", "a", "n2")));
    assertThat(state.empty()).isTrue();
    assertThat(state.progress())
        .isEqualTo("0 task(s) stopping, 0 claim(s) held, 0 volume claim(s) held");
  }
}
