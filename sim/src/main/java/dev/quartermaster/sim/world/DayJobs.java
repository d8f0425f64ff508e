package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The day's stream of jobs, until {@code tasks} tasks were asked for: workloads of 1 to 8 workers
 * arriving at random (exponential gaps spread over the span), each worker with 1, 2, 4 or 8 GPUs. A
 * quarter of the jobs end by themselves ({@code done}, a few seconds); the rest train until their
 * {@code activeDeadlineSeconds} stops them, a minute to an hour of a day (scaled with the span, 5 s
 * at least). Every job is deleted by its TTL a minute after it is over, so the fleet fills and
 * empties rather than filling up, and no one has to look over all jobs to find the finished ones.
 */
final class DayJobs {
  static final int MAX_WORKERS = 8;
  private static final List<Integer> GPUS = List.of(1, 1, 1, 2, 4, 8);
  private static final int TTL_SECONDS = 60;

  private final Env env;
  private final ObjectRegistry api;
  private final int tasks;
  private final Duration span;
  private final double meanGapNanos;
  private int asked;
  private int jobs;

  DayJobs(Env env, ObjectRegistry api, int tasks, Duration span) {
    this.env = env;
    this.api = api;
    this.tasks = tasks;
    this.span = span;
    // Jobs average 4.5 workers; arrivals end a tenth before the span does, so late jobs can run.
    double expectedJobs = Math.max(1, tasks / ((1 + MAX_WORKERS) / 2.0));
    this.meanGapNanos = span.toNanos() * 0.9 / expectedJobs;
  }

  /** The first job arrives now; each schedules the next. */
  void start() {
    env.execute(this::arrive);
  }

  /** Tasks asked for so far (the workloads' replicas). */
  int asked() {
    return asked;
  }

  int jobs() {
    return jobs;
  }

  private void arrive() {
    if (asked >= tasks) {
      return;
    }
    var random = env.random();
    int workers = Math.min(tasks - asked, 1 + random.nextInt(MAX_WORKERS));
    int gpus = GPUS.get(random.nextInt(GPUS.size()));
    boolean done = random.nextInt(4) == 0;
    // A minute to an hour of a day (5 to 10 s of a test's few minutes).
    long shortest = Math.max(5, span.toSeconds() / 1440);
    long longest = Math.max(2 * shortest, span.toSeconds() / 24);
    int deadline = (int) (shortest + random.nextLong(longest - shortest + 1));
    var job = job("job-" + jobs, workers, gpus, done ? "done" : "train", deadline);
    jobs++;
    asked += workers;
    SeedRun.tolerant(() -> api.create(job));
    double gap = -Math.log(1 - random.nextDouble()) * meanGapNanos;
    env.schedule(Duration.ofNanos((long) gap), this::arrive);
  }

  static Workload job(String name, int workers, int gpus, String command, int deadlineSeconds) {
    var template =
        new TaskTemplate(List.of(command), Map.of(), "exec", Optional.empty(), List.of(), Map.of())
            .withActiveDeadlineSeconds(deadlineSeconds);
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()));
    var group = new WorkerGroup("w", workers, template, List.of(claim), RestartPolicy.Never);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(group), Optional.empty()).withTtlSecondsAfterFinished(TTL_SECONDS),
        WorkloadStatus.EMPTY);
  }
}
