package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.ShareRequest;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.meta.ObjectMeta;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * MPS-shared GPUs in a run with sharing nodes: stand-alone tasks on shares of 20 to 60 % and 10 to
 * 40 GiB (a claim of class {@code mps} with its share, and a task on it), applied over the first
 * {@link TimeSliceJobs#WINDOW} and deleted a while later, so that shares come and go on a GPU whose
 * compute they often fill, under the faults (the MPS daemons' crashes among them: {@link
 * Chaos#mpsDaemonCrashes}).
 */
final class MpsJobs {
  static final String PREFIX = "share-";

  /** The GPU each sharing node keeps shared by MPS all run; gpu-3 the operator switches. */
  static final String STEADY = "gpu-2";

  static final String SWITCHED = "gpu-3";

  /** How many shares a sharing node's MPS GPUs take at once. */
  static final int CLIENTS = 3;

  private static final int[] COMPUTE = {20, 30, 40, 50, 60};

  private MpsJobs() {}

  static void start(SeedRun run, RandomGenerator random, int count) {
    run.world()
        .api()
        .create(
            new DeviceClass(
                ObjectMeta.named(MpsShares.DEVICE_CLASS),
                new DeviceClassSpec(MpsShares.DEVICE_CLASS, List.of()),
                DeviceClassStatus.EMPTY));
    for (int i = 0; i < count; i++) {
      var name = PREFIX + i;
      int compute = COMPUTE[random.nextInt(COMPUTE.length)];
      int gib = 10 * (1 + random.nextInt(4));
      var at = Duration.ofMillis(random.nextLong(TimeSliceJobs.WINDOW.toMillis()));
      var lasts = Duration.ofSeconds(10 + random.nextInt(60));
      StandAloneJob.schedule(
          run,
          name,
          "MPS job " + name,
          " (" + compute + " %, " + gib + " GiB)",
          "share",
          MpsShares.DEVICE_CLASS,
          Optional.of(new ShareRequest(compute, gib + "Gi")),
          at,
          lasts);
    }
  }
}
