package dev.quartermaster.api.workload;

import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.queue.Queue;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * @param groups the worker groups; each is kept at its replicas
 * @param computeDomain the compute domain every worker's claims join, if any
 * @param gang whether all the groups together are one gang, placed all or nothing (a launcher and
 *     its workers, parameter servers and workers): its failure policy and topology; each group's
 *     share is its own {@code gang.minMember}. Empty: each group is a gang or not on its own
 * @param queue the queue it is admitted through; empty: {@code default}
 * @param priority its priority class; empty: priority 0
 * @param ttlSecondsAfterFinished how long the workload is kept once its job is over (every task has
 *     ended for good), as a Kubernetes Job's field of that name: then it is deleted, and its tasks
 *     with it. Empty: kept until deleted
 * @param startTimeoutSeconds how long, once admitted, it may take until every task it needs runs
 *     (each group's gang share, or all its replicas); past that it gives its quota back and waits
 *     in its queue again after a backoff, as Kueue's {@code waitForPodsReady}. Empty: {@link
 *     #DEFAULT_START_TIMEOUT_SECONDS}. Only where its queue limits what it uses: quota nobody else
 *     can be admitted with is not worth taking back
 */
public record WorkloadSpec(
    List<WorkerGroup> groups,
    Optional<String> computeDomain,
    Optional<GangSpec> gang,
    Optional<String> queue,
    Optional<String> priority,
    Optional<Integer> ttlSecondsAfterFinished,
    Optional<Integer> startTimeoutSeconds) {
  /**
   * In a workload with a compute domain, each task also has a claim {@code <task>-channels} for its
   * domain's IMEX channels on its node; no claim template may take that name.
   */
  public static final String CHANNEL_CLAIM = "channels";

  public static final WorkloadSpec EMPTY = new WorkloadSpec(List.of(), Optional.empty());

  /** Kueue's {@code waitForPodsReady} default: five minutes. */
  public static final int DEFAULT_START_TIMEOUT_SECONDS = 300;

  public WorkloadSpec {
    groups = groups == null ? List.of() : List.copyOf(groups);
    computeDomain = computeDomain == null ? Optional.empty() : computeDomain;
    gang = gang == null ? Optional.empty() : gang;
    queue = queue == null ? Optional.empty() : queue;
    priority = priority == null ? Optional.empty() : priority;
    ttlSecondsAfterFinished =
        ttlSecondsAfterFinished == null ? Optional.empty() : ttlSecondsAfterFinished;
    startTimeoutSeconds = startTimeoutSeconds == null ? Optional.empty() : startTimeoutSeconds;
  }

  public WorkloadSpec(
      List<WorkerGroup> groups,
      Optional<String> computeDomain,
      Optional<GangSpec> gang,
      Optional<String> queue,
      Optional<String> priority) {
    this(groups, computeDomain, gang, queue, priority, Optional.empty(), Optional.empty());
  }

  public WorkloadSpec(List<WorkerGroup> groups, Optional<String> computeDomain) {
    this(groups, computeDomain, Optional.empty());
  }

  public WorkloadSpec(
      List<WorkerGroup> groups, Optional<String> computeDomain, Optional<GangSpec> gang) {
    this(groups, computeDomain, gang, Optional.empty(), Optional.empty());
  }

  /** The queue it waits in: its own, or {@code default}. */
  public String queueName() {
    return queue.orElse(Queue.DEFAULT);
  }

  /** This spec with {@code next} as its groups, all else kept ({@code qm scale}). */
  public WorkloadSpec withGroups(List<WorkerGroup> next) {
    return new WorkloadSpec(
        next, computeDomain, gang, queue, priority, ttlSecondsAfterFinished, startTimeoutSeconds);
  }

  /** This spec, deleted {@code seconds} after its job is over. */
  public WorkloadSpec withTtlSecondsAfterFinished(int seconds) {
    return new WorkloadSpec(
        groups, computeDomain, gang, queue, priority, Optional.of(seconds), startTimeoutSeconds);
  }

  /** This spec admitted through {@code queue} at {@code priorityClass}. */
  public WorkloadSpec inQueue(String queue, Optional<String> priorityClass) {
    return new WorkloadSpec(
        groups,
        computeDomain,
        gang,
        Optional.of(queue),
        priorityClass,
        ttlSecondsAfterFinished,
        startTimeoutSeconds);
  }

  /** This spec with a start timeout of {@code seconds}. */
  public WorkloadSpec withStartTimeout(int seconds) {
    return new WorkloadSpec(
        groups,
        computeDomain,
        gang,
        queue,
        priority,
        ttlSecondsAfterFinished,
        Optional.of(seconds));
  }

  /** How long, once admitted, it may take until it runs ({@link #startTimeoutSeconds}). */
  public Duration startTimeout() {
    return Duration.ofSeconds(startTimeoutSeconds.orElse(DEFAULT_START_TIMEOUT_SECONDS));
  }
}
