package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.claim.ShareRequest;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A stand-alone job an operator applies and later deletes in a seed run: a claim for one device of
 * a class and a task on it, named alike; applied at {@code at}, deleted (task, then claim) {@code
 * lasts} after. Slice jobs ({@link MigJobs}), time-sliced jobs ({@link TimeSliceJobs}) and MPS jobs
 * ({@link MpsJobs}) are such jobs.
 */
final class StandAloneJob {
  private StandAloneJob() {}

  /**
   * @param what the job as the run's events name it ({@code slice job slice-3})
   * @param detail said when it is applied ({@code (1g.18gb)}), or empty
   * @param request the claim's one request's name
   */
  static void schedule(
      SeedRun run,
      String name,
      String what,
      String detail,
      String request,
      String deviceClass,
      Duration at,
      Duration lasts) {
    schedule(run, name, what, detail, request, deviceClass, Optional.empty(), at, lasts);
  }

  /** As above, the request asking for {@code share} of an MPS GPU if present. */
  static void schedule(
      SeedRun run,
      String name,
      String what,
      String detail,
      String request,
      String deviceClass,
      Optional<ShareRequest> share,
      Duration at,
      Duration lasts) {
    var api = run.world().api();
    var env = run.world().env();
    env.schedule(
        at,
        () -> {
          run.event("operator: apply " + what + detail);
          SeedRun.tolerant(() -> api.create(claim(name, request, deviceClass, share)));
          SeedRun.tolerant(() -> api.create(task(name)));
        });
    env.schedule(
        at.plus(lasts),
        () -> {
          run.event("operator: delete " + what);
          run.promises().operatorDeleted(name);
          SeedRun.tolerant(() -> api.delete(Kinds.TASK, name));
          SeedRun.tolerant(() -> api.delete(Kinds.RESOURCE_CLAIM, name));
        });
  }

  private static ResourceClaim claim(
      String name, String request, String deviceClass, Optional<ShareRequest> share) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        new ResourceClaimSpec(
            List.of(new DeviceRequest(request, deviceClass, 1, List.of(), share)),
            Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }

  private static Task task(String name) {
    return new Task(
        ObjectMeta.named(name),
        new TaskSpec(
            Optional.empty(),
            List.of("serve"),
            Map.of(),
            List.of(name),
            List.of(),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }
}
