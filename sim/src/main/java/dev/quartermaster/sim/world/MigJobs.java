package dev.quartermaster.sim.world;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSelector;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.meta.ObjectMeta;
import java.time.Duration;
import java.util.List;
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
    for (int i = 0; i < count; i++) {
      var name = PREFIX + i;
      var profile = PROFILES.get(random.nextInt(PROFILES.size()));
      var at = Duration.ofMillis(random.nextLong(Chaos.WINDOW.toMillis()));
      var lasts = Duration.ofSeconds(5 + random.nextInt(60));
      StandAloneJob.schedule(
          run,
          name,
          "slice job " + name,
          " (" + profile + ")",
          "slice",
          deviceClass(profile),
          at,
          lasts);
    }
  }
}
