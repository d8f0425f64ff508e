package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSelector;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Stand-alone tasks on MIG slices for a run with MIG nodes, until the generator's slice workloads
 * come: each a claim for one slice of a profile drawn from {@link #PROFILES} and a task on it,
 * applied over the fault window and deleted (task, then claim) by an operator a while later, so
 * that instances are made and destroyed under the faults.
 */
final class MigJobs {
  /** The profiles asked for, by the device classes {@code mig-<profile>} (dots as dashes). */
  static final List<String> PROFILES = List.of("1g.18gb", "2g.35gb", "3g.71gb");

  static final String PREFIX = "slice-";

  private MigJobs() {}

  static String deviceClass(String profile) {
    return "mig-" + profile.replace('.', '-');
  }

  /** Creates the device classes and schedules {@code count} slice jobs. */
  static void start(SeedRun run, RandomGenerator random, int count) {
    var api = run.world().api();
    for (var p : PROFILES) {
      api.create(
          new DeviceClass(
              ObjectMeta.named(deviceClass(p)),
              new DeviceClassSpec(
                  MigGeometry.DEVICE_CLASS,
                  List.of(new DeviceSelector("profile", DeviceSelector.Operator.In, List.of(p)))),
              DeviceClassStatus.EMPTY));
    }
    var env = run.world().env();
    for (int i = 0; i < count; i++) {
      var name = PREFIX + i;
      var profile = PROFILES.get(random.nextInt(PROFILES.size()));
      var at = Duration.ofMillis(random.nextLong(Chaos.WINDOW.toMillis()));
      var lasts = Duration.ofSeconds(5 + random.nextInt(60));
      env.schedule(
          at,
          () -> {
            run.event("operator: apply slice job " + name + " (" + profile + ")");
            SeedRun.tolerant(() -> api.create(claim(name, profile)));
            SeedRun.tolerant(() -> api.create(task(name)));
          });
      env.schedule(
          at.plus(lasts),
          () -> {
            run.event("operator: delete slice job " + name);
            run.promises().operatorDeleted(name);
            SeedRun.tolerant(() -> api.delete(Kinds.TASK, name));
            SeedRun.tolerant(() -> api.delete(Kinds.RESOURCE_CLAIM, name));
          });
    }
  }

  private static ResourceClaim claim(String name, String profile) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("slice", deviceClass(profile), 1, List.of())),
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
