package dev.quartermaster.agent.volumes;

import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.workload.Task;
import java.util.Optional;

/**
 * Whether a volume claim's task incarnation still lives on this node, so that its volume must stay
 * published (I2: for the task's whole life, not until the store says it ended). A claim is released
 * only when no process of ours runs for it and its task is gone, another incarnation, deleting,
 * finished, or bound elsewhere (Nomad #26831: marking claims past on the store's word, before the
 * process was really gone).
 */
final class VolumeClaimLiveness {
  private VolumeClaimLiveness() {}

  /**
   * @param task the task of {@code volumeClaim}'s name, as read
   * @param processRuns whether a process of ours for this incarnation may still run here
   */
  static boolean live(
      VolumeClaim volumeClaim, String node, Optional<Task> task, boolean processRuns) {
    if (processRuns) {
      return true;
    }
    return task.filter(t -> t.metadata().uid().equals(volumeClaim.taskUid()))
        .filter(t -> !t.metadata().isDeleting())
        .filter(t -> !t.status().phase().isFinished())
        .filter(t -> t.spec().node().filter(node::equals).isPresent())
        .isPresent();
  }
}
