package dev.quartermaster.api.queue;

import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * What a workload asks of its queue's quota: per device class, every replica's claim templates'
 * device counts, and in a workload with a compute domain every replica's IMEX channels (its {@code
 * <task>-channels} claim, of class {@code channel}). A gang or not, a workload is admitted whole:
 * its tasks are created only once all of it fits.
 */
public final class Demand {
  private Demand() {}

  /** As {@link #of(WorkloadSpec, ToIntFunction)}, every domain giving its default 1 per task. */
  public static Map<String, Integer> of(WorkloadSpec spec) {
    return of(spec, domain -> 1);
  }

  /**
   * @param channelsPerTask compute domain name → how many channels it gives each task ({@code
   *     spec.channelsPerTask}; 1 for a domain not there yet)
   */
  public static Map<String, Integer> of(WorkloadSpec spec, ToIntFunction<String> channelsPerTask) {
    var out = new TreeMap<String, Integer>();
    for (var g : spec.groups()) {
      for (var t : g.claimTemplates()) {
        for (var r : t.spec().requests()) {
          out.merge(r.deviceClassName(), g.replicas() * r.count(), Integer::sum);
        }
      }
    }
    spec.computeDomain()
        .ifPresent(
            d -> {
              int replicas = spec.groups().stream().mapToInt(g -> g.replicas()).sum();
              int channels = replicas * channelsPerTask.applyAsInt(d);
              if (channels > 0) {
                out.merge(ComputeDomainSpec.CHANNEL_DEVICE_CLASS, channels, Integer::sum);
              }
            });
    return out;
  }
}
