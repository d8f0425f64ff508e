package dev.quartermaster.api.workload;

import dev.quartermaster.api.volume.VolumeUse;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a task runs.
 *
 * @param runtime {@code exec} (a local process) or {@code podman} (a container)
 * @param image the container image or rootfs directory, for {@code podman}
 * @param volumes names of {@code Volume}s to publish on the task's node
 * @param onDeviceLoss copied into each task's spec: what the agent does when the node loses a
 *     device node the task was given ({@code Continue} by default)
 * @param terminationGracePeriodSeconds copied into each task's spec: how long a task that is
 *     stopped (deleted, scaled down, preempted) has between SIGTERM and SIGKILL; unset, {@link
 *     TaskSpec#DEFAULT_GRACE_SECONDS}
 * @param activeDeadlineSeconds copied into each task's spec: the most it may run, from when the
 *     control plane sees it running; a task still running then is stopped ({@code
 *     DeadlineExceeded}). Declaring it lets a job backfill past a waiting large one. Unset: no
 *     limit
 */
public record TaskTemplate(
    List<String> command,
    Map<String, String> env,
    String runtime,
    Optional<String> image,
    List<VolumeUse> volumes,
    Map<String, String> labels,
    DeviceLossPolicy onDeviceLoss,
    Optional<Integer> terminationGracePeriodSeconds,
    Optional<Integer> activeDeadlineSeconds) {
  public static final TaskTemplate EMPTY =
      new TaskTemplate(List.of(), Map.of(), "exec", Optional.empty(), List.of(), Map.of());

  /** A template with the default device-loss policy ({@link DeviceLossPolicy#Continue}). */
  public TaskTemplate(
      List<String> command,
      Map<String, String> env,
      String runtime,
      Optional<String> image,
      List<VolumeUse> volumes,
      Map<String, String> labels) {
    this(command, env, runtime, image, volumes, labels, DeviceLossPolicy.Continue);
  }

  /** A template with the default grace period. */
  public TaskTemplate(
      List<String> command,
      Map<String, String> env,
      String runtime,
      Optional<String> image,
      List<VolumeUse> volumes,
      Map<String, String> labels,
      DeviceLossPolicy onDeviceLoss) {
    this(command, env, runtime, image, volumes, labels, onDeviceLoss, Optional.empty());
  }

  /** A template with no deadline. */
  public TaskTemplate(
      List<String> command,
      Map<String, String> env,
      String runtime,
      Optional<String> image,
      List<VolumeUse> volumes,
      Map<String, String> labels,
      DeviceLossPolicy onDeviceLoss,
      Optional<Integer> terminationGracePeriodSeconds) {
    this(
        command,
        env,
        runtime,
        image,
        volumes,
        labels,
        onDeviceLoss,
        terminationGracePeriodSeconds,
        Optional.empty());
  }

  public TaskTemplate {
    command = command == null ? List.of() : List.copyOf(command);
    env = env == null ? Map.of() : Map.copyOf(env);
    runtime = runtime == null || runtime.isEmpty() ? "exec" : runtime;
    image = image == null ? Optional.empty() : image;
    volumes = volumes == null ? List.of() : List.copyOf(volumes);
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    onDeviceLoss = onDeviceLoss == null ? DeviceLossPolicy.Continue : onDeviceLoss;
    terminationGracePeriodSeconds =
        terminationGracePeriodSeconds == null ? Optional.empty() : terminationGracePeriodSeconds;
    activeDeadlineSeconds =
        activeDeadlineSeconds == null ? Optional.empty() : activeDeadlineSeconds;
  }

  /** This template with {@code seconds} as its deadline. */
  public TaskTemplate withActiveDeadlineSeconds(int seconds) {
    return new TaskTemplate(
        command,
        env,
        runtime,
        image,
        volumes,
        labels,
        onDeviceLoss,
        terminationGracePeriodSeconds,
        Optional.of(seconds));
  }
}
