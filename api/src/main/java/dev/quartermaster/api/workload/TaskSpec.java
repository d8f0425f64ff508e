package dev.quartermaster.api.workload;

import dev.quartermaster.api.volume.VolumeUse;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * @param node where the task runs; empty until it is scheduled (or pinned by the user)
 * @param claims names of the {@code ResourceClaim}s it uses
 * @param volumes names of the {@code Volume}s it uses
 * @param runtime {@code exec} or {@code podman}
 * @param attempt how many times in a row its workload slot was restarted before this task (0 for a
 *     first run); set by the workload controller, which carries it across re-creation to pace
 *     restarts (crash-loop backoff)
 * @param onDeviceLoss what the agent does when the task's node loses a device node it was given
 * @param terminationGracePeriodSeconds how long the agent waits, once the task is deleted, between
 *     SIGTERM and SIGKILL; unset, {@link #DEFAULT_GRACE_SECONDS}
 * @param activeDeadlineSeconds the most it may run, from when the control plane sees it running;
 *     then it is stopped and ends {@code Failed: DeadlineExceeded}. Unset: no limit (and nothing is
 *     backfilled onto devices reserved for a waiting job)
 */
public record TaskSpec(
    Optional<String> node,
    List<String> command,
    Map<String, String> env,
    List<String> claims,
    List<VolumeUse> volumes,
    String runtime,
    Optional<String> image,
    int attempt,
    DeviceLossPolicy onDeviceLoss,
    Optional<Integer> terminationGracePeriodSeconds,
    Optional<Integer> activeDeadlineSeconds) {
  /** The grace period of a task that sets none (as Nomad's {@code kill_timeout}). */
  public static final int DEFAULT_GRACE_SECONDS = 5;

  public static final TaskSpec EMPTY =
      new TaskSpec(
          Optional.empty(), List.of(), Map.of(), List.of(), List.of(), "exec", Optional.empty());

  public TaskSpec {
    node = node == null ? Optional.empty() : node;
    command = command == null ? List.of() : List.copyOf(command);
    env = env == null ? Map.of() : Map.copyOf(env);
    claims = claims == null ? List.of() : List.copyOf(claims);
    volumes = volumes == null ? List.of() : List.copyOf(volumes);
    runtime = runtime == null || runtime.isEmpty() ? "exec" : runtime;
    image = image == null ? Optional.empty() : image;
    onDeviceLoss = onDeviceLoss == null ? DeviceLossPolicy.Continue : onDeviceLoss;
    terminationGracePeriodSeconds =
        terminationGracePeriodSeconds == null ? Optional.empty() : terminationGracePeriodSeconds;
    activeDeadlineSeconds =
        activeDeadlineSeconds == null ? Optional.empty() : activeDeadlineSeconds;
  }

  /** A spec with no deadline. */
  public TaskSpec(
      Optional<String> node,
      List<String> command,
      Map<String, String> env,
      List<String> claims,
      List<VolumeUse> volumes,
      String runtime,
      Optional<String> image,
      int attempt,
      DeviceLossPolicy onDeviceLoss,
      Optional<Integer> terminationGracePeriodSeconds) {
    this(
        node,
        command,
        env,
        claims,
        volumes,
        runtime,
        image,
        attempt,
        onDeviceLoss,
        terminationGracePeriodSeconds,
        Optional.empty());
  }

  /** A spec with the default grace period. */
  public TaskSpec(
      Optional<String> node,
      List<String> command,
      Map<String, String> env,
      List<String> claims,
      List<VolumeUse> volumes,
      String runtime,
      Optional<String> image,
      int attempt,
      DeviceLossPolicy onDeviceLoss) {
    this(
        node,
        command,
        env,
        claims,
        volumes,
        runtime,
        image,
        attempt,
        onDeviceLoss,
        Optional.empty());
  }

  /** The grace period in force: its own, or the default. */
  public java.time.Duration gracePeriod() {
    return java.time.Duration.ofSeconds(
        terminationGracePeriodSeconds.orElse(DEFAULT_GRACE_SECONDS));
  }

  /** A first run ({@code attempt} 0) that keeps running when a device node goes missing. */
  public TaskSpec(
      Optional<String> node,
      List<String> command,
      Map<String, String> env,
      List<String> claims,
      List<VolumeUse> volumes,
      String runtime,
      Optional<String> image) {
    this(node, command, env, claims, volumes, runtime, image, 0, DeviceLossPolicy.Continue);
  }

  /** This spec placed on {@code node}; everything else kept. */
  public TaskSpec withNode(Optional<String> node) {
    return new TaskSpec(
        node,
        command,
        env,
        claims,
        volumes,
        runtime,
        image,
        attempt,
        onDeviceLoss,
        terminationGracePeriodSeconds,
        activeDeadlineSeconds);
  }

  /** The deadline in force, if any. */
  public Optional<java.time.Duration> activeDeadline() {
    return activeDeadlineSeconds.map(java.time.Duration::ofSeconds);
  }
}
