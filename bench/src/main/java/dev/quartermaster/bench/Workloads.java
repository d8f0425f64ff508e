package dev.quartermaster.bench;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The benches' workloads: one group {@value #GROUP} of workers with the no-op runtime. */
final class Workloads {
  /**
   * The group's name: task {@code i} is {@code <workload>-w-<i>}, its claim that and {@code -gpu}.
   */
  static final String GROUP = "w";

  private Workloads() {}

  /** {@code tasks} one-GPU workers, each placed on its own. */
  static Workload oneGpuEach(String name, int tasks) {
    return of(name, tasks, 1, Optional.empty());
  }

  /** {@code members} workers of {@code gpus} GPUs each, placed all together or not at all. */
  static Workload gang(String name, int members, int gpus) {
    return of(name, members, gpus, Optional.of(GangSpec.ALL));
  }

  /** The claim of worker {@code ordinal} of workload {@code name}. */
  static String claimOf(String name, int ordinal) {
    return name + "-" + GROUP + "-" + ordinal + "-gpu";
  }

  private static Workload of(String name, int workers, int gpus, Optional<GangSpec> gang) {
    var claim =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty());
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of());
    var group =
        new WorkerGroup(
            GROUP,
            workers,
            template,
            List.of(new ClaimTemplate("gpu", claim)),
            RestartPolicy.OnFailure);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(gang.map(group::withGang).orElse(group)), Optional.empty()),
        WorkloadStatus.EMPTY);
  }
}
