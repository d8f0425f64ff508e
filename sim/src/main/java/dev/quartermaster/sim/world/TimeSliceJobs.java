package dev.quartermaster.sim.world;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.GpuSharing;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Time-sliced GPUs in a run with sharing nodes: stand-alone tasks on replicas (a claim of class
 * {@code timeslice} and a task on it), applied over the fault window and deleted a while later; and
 * an operator who switches each sharing node's {@code gpu-1} between time-sliced and whole over the
 * window ({@code qm node share}), refused while a claim holds it, so that the GPU changes form
 * between claims of both kinds under the faults.
 */
final class TimeSliceJobs {
  static final String PREFIX = "turn-";

  /**
   * When jobs arrive: the first 30 s, which a run's 3,000 steps of faults span (about 20 s of
   * simulated time), so that they meet the faults rather than the healed cluster after them.
   */
  static final Duration WINDOW = Duration.ofSeconds(30);

  /** The GPU an operator switches; {@code gpu-0} stays time-sliced all run. */
  static final String SWITCHED = "gpu-1";

  private TimeSliceJobs() {}

  /**
   * The wish a sharing node starts with: gpu-0 and gpu-1 each time-sliced by 2, gpu-2 and gpu-3
   * shared by MPS ({@link MpsJobs}).
   */
  static dev.quartermaster.api.node.NodeSpec startingSpec() {
    return dev.quartermaster.api.node.NodeSpec.EMPTY
        .withSharing("gpu-0", Optional.of(GpuSharing.timeSliced(2)))
        .withSharing(SWITCHED, Optional.of(GpuSharing.timeSliced(2)))
        .withSharing(MpsJobs.STEADY, Optional.of(GpuSharing.mps(MpsJobs.CLIENTS)))
        .withSharing(MpsJobs.SWITCHED, Optional.of(GpuSharing.mps(MpsJobs.CLIENTS)));
  }

  static void start(SeedRun run, RandomGenerator random, int count) {
    var api = run.world().api();
    api.create(
        new DeviceClass(
            ObjectMeta.named(TimeSlices.DEVICE_CLASS),
            new DeviceClassSpec(TimeSlices.DEVICE_CLASS, List.of()),
            DeviceClassStatus.EMPTY));
    var env = run.world().env();
    for (int i = 0; i < count; i++) {
      var name = PREFIX + i;
      var at = Duration.ofMillis(random.nextLong(WINDOW.toMillis()));
      var lasts = Duration.ofSeconds(10 + random.nextInt(60));
      StandAloneJob.schedule(
          run, name, "time-sliced job " + name, "", "turn", TimeSlices.DEVICE_CLASS, at, lasts);
    }
    for (var node : run.world().shareNodes()) {
      // Six switches, whole and time-sliced by turns (it starts time-sliced), each spell long
      // enough for the agent to hear of it at a heartbeat and claims to take the GPU in its form:
      // the first within the faults, the rest while the cluster heals.
      var at = Duration.ofMillis(2_000 + random.nextLong(3_000));
      for (int k = 0; k < 6; k++) {
        boolean shared = k % 2 == 1;
        env.schedule(at, () -> switchGpu(run, node, shared));
        at = at.plus(Duration.ofMillis(20_000 + random.nextLong(20_000)));
      }
    }
  }

  /**
   * The operator's {@code qm node share}, of gpu-1 (time-sliced or whole) and then of gpu-3 (MPS or
   * whole): each refused while a claim holds the GPU or a part of it.
   */
  private static void switchGpu(SeedRun run, String node, boolean shared) {
    switchGpu(
        run, node, SWITCHED, shared ? Optional.of(GpuSharing.timeSliced(2)) : Optional.empty());
    switchGpu(
        run,
        node,
        MpsJobs.SWITCHED,
        shared ? Optional.of(GpuSharing.mps(MpsJobs.CLIENTS)) : Optional.empty());
  }

  private static void switchGpu(SeedRun run, String node, String gpu, Optional<GpuSharing> how) {
    var said =
        how.map(
                h ->
                    h.mode() == dev.quartermaster.api.node.SharingMode.Mps
                        ? " MPS"
                        : " time-sliced")
            .orElse(" whole");
    try {
      run.world().nodeSpec(node, s -> s.withSharing(gpu, how));
      run.event("operator: " + node + " " + gpu + said);
    } catch (ApiException e) {
      run.event("operator: " + node + " " + gpu + " not switched: " + e.getMessage());
    }
  }
}
