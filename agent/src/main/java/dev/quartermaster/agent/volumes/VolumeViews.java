package dev.quartermaster.agent.volumes;

import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.workload.Task;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * What the volume releaser reads without a call: the informers' views of a Volume and of a Task by
 * name, and whether a process of ours for task (name, uid) may still run here.
 */
public record VolumeViews(
    Function<String, Optional<Volume>> volumes,
    Function<String, Optional<Task>> tasks,
    BiPredicate<String, String> processRuns) {
  public VolumeViews {
    Objects.requireNonNull(volumes, "volumes");
    Objects.requireNonNull(tasks, "tasks");
    Objects.requireNonNull(processRuns, "processRuns");
  }
}
