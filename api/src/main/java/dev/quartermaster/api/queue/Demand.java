package dev.quartermaster.api.queue;

import dev.quartermaster.api.device.mig.MigCharge;
import dev.quartermaster.api.device.mps.MpsCharge;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * What a workload asks of its queue's quota: per device class, every replica's claim templates'
 * device counts, and in a workload with a compute domain every replica's IMEX channels (its {@code
 * <task>-channels} claim, of class {@code channel}); MIG slices' compute slices and MPS shares'
 * compute and memory beside ({@link MigCharge}, {@link MpsCharge}). A gang or not, a workload is
 * admitted whole: its tasks are created only once all of it fits.
 *
 * <p>Counted exactly ({@link Counts}): a workload may ask for at most {@link #MAX_DEVICES} devices
 * of its claim templates (validation refuses more), and a count past an {@code int} reads as {@code
 * Integer.MAX_VALUE} (it fits no quota) rather than wrapping to a small or negative number.
 */
public final class Demand {
  /**
   * The most devices one workload's claim templates may ask for, all replicas and classes together:
   * far beyond any cluster, and far below where a cohort's sums could overflow. A compute domain's
   * channels come on top (at most the replicas × its channels per task).
   */
  public static final int MAX_DEVICES = 1_000_000;

  private Demand() {}

  /**
   * How many devices {@code spec}'s claim templates ask for, all classes and replicas together,
   * exactly (saturated at {@code Long.MAX_VALUE}); a compute domain's channels are not counted.
   */
  public static long devices(WorkloadSpec spec) {
    long total = 0;
    for (var g : spec.groups()) {
      for (var t : g.claimTemplates()) {
        for (var r : t.spec().requests()) {
          total = Counts.sum(total, Counts.product(g.replicas(), r.count()));
        }
      }
    }
    return total;
  }

  /** As {@link #of(WorkloadSpec, ToIntFunction)}, every domain giving its default 1 per task. */
  public static Map<String, Integer> of(WorkloadSpec spec) {
    return of(spec, domain -> 1);
  }

  /**
   * @param channelsPerTask compute domain name → how many channels it gives each task ({@code
   *     spec.channelsPerTask}; 1 for a domain not there yet)
   */
  public static Map<String, Integer> of(WorkloadSpec spec, ToIntFunction<String> channelsPerTask) {
    return of(spec, channelsPerTask, c -> 0);
  }

  /**
   * @param channelsPerTask compute domain name → how many channels it gives each task
   * @param migComputeSlices device class name → the MIG compute slices one device of it costs
   *     ({@link MigCharge}; 0: none), summed under {@link MigCharge#QUOTA} beside the class's own
   *     count, so that a queue may limit slices per profile class, in compute slices, or both
   */
  public static Map<String, Integer> of(
      WorkloadSpec spec,
      ToIntFunction<String> channelsPerTask,
      ToIntFunction<String> migComputeSlices) {
    var exact = new TreeMap<String, Long>();
    for (var g : spec.groups()) {
      for (var t : g.claimTemplates()) {
        for (var r : t.spec().requests()) {
          long devices = Counts.product(g.replicas(), r.count());
          exact.merge(r.deviceClassName(), devices, Counts::sum);
          int slices = migComputeSlices.applyAsInt(r.deviceClassName());
          if (slices > 0) {
            exact.merge(MigCharge.QUOTA, Counts.product(devices, slices), Counts::sum);
          }
          r.share()
              .ifPresent(
                  s -> {
                    exact.merge(
                        MpsCharge.COMPUTE_QUOTA, Counts.product(devices, s.compute()), Counts::sum);
                    exact.merge(
                        MpsCharge.MEMORY_QUOTA,
                        Counts.product(devices, s.memoryGiB().orElse(0)),
                        Counts::sum);
                  });
        }
      }
    }
    spec.computeDomain()
        .ifPresent(
            d -> {
              long replicas = spec.groups().stream().mapToLong(g -> g.replicas()).sum();
              long channels = Counts.product(replicas, channelsPerTask.applyAsInt(d));
              if (channels > 0) {
                exact.merge(ComputeDomainSpec.CHANNEL_DEVICE_CLASS, channels, Counts::sum);
              }
            });
    var out = new TreeMap<String, Integer>();
    exact.forEach((c, n) -> out.put(c, Counts.toInt(n)));
    return out;
  }
}
