package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSelector;
import dev.quartermaster.api.device.DeviceSelector.Operator;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The ways a user asks for a slice, beside {@link MigJobs}' one class per profile: a workload whose
 * groups ask by the profile's own name ({@code mig-1g.18gb}) and by attributes — at least 2 compute
 * slices, at least 35 GB — which the allocator meets with the smallest profile that serves, placed
 * least-fragmenting among the slice jobs' instances. Its workers run from the start to the end of
 * the run, so that placement works around slices held throughout.
 */
final class SliceAsks {
  static final String WORKLOAD = "slice-workers";

  /** A class per way of asking: its name, and the one selector it puts on {@code mig} slices. */
  private record Ask(String deviceClass, DeviceSelector selector) {}

  private static final List<Ask> ASKS =
      List.of(
          new Ask(
              "mig-1g.18gb",
              new DeviceSelector(MigGeometry.PROFILE, Operator.In, List.of("1g.18gb"))),
          new Ask(
              "mig-compute-2",
              new DeviceSelector(MigGeometry.COMPUTE_SLICES, Operator.Gte, List.of("2"))),
          new Ask(
              "mig-memory-35gb",
              new DeviceSelector(MigGeometry.MEMORY, Operator.Gte, List.of("35000000000"))));

  private SliceAsks() {}

  /** Creates the classes and the workload: each group 1 or 2 workers of one slice each. */
  static void start(SeedRun run, RandomGenerator random) {
    var api = run.world().api();
    var groups = new ArrayList<WorkerGroup>();
    for (var ask : ASKS) {
      api.create(
          new DeviceClass(
              ObjectMeta.named(ask.deviceClass()),
              new DeviceClassSpec(MigGeometry.DEVICE_CLASS, List.of(ask.selector())),
              DeviceClassStatus.EMPTY));
      groups.add(group(ask.deviceClass(), 1 + random.nextInt(2)));
    }
    run.event("operator: apply workload " + WORKLOAD + " (slices by profile and by attributes)");
    api.create(
        new Workload(
            ObjectMeta.named(WORKLOAD),
            new WorkloadSpec(List.copyOf(groups), Optional.empty()),
            WorkloadStatus.EMPTY));
  }

  /** A group named after its class (dots as dashes: a group's name is a DNS label). */
  private static WorkerGroup group(String deviceClass, int replicas) {
    var claim =
        new ClaimTemplate(
            "slice",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("slice", deviceClass, 1, List.of())), Optional.empty()));
    return new WorkerGroup(
        deviceClass.replace('.', '-'),
        replicas,
        new TaskTemplate(List.of("infer"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
        List.of(claim),
        null);
  }
}
