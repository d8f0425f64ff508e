package dev.quartermaster.api.queue;

import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a workload asks of its queue's quota: per device class, every replica's claim templates'
 * device counts. A gang or not, a workload is admitted whole: its tasks are created only once all
 * of it fits.
 */
public final class Demand {
  private Demand() {}

  public static Map<String, Integer> of(WorkloadSpec spec) {
    var out = new TreeMap<String, Integer>();
    for (var g : spec.groups()) {
      for (var t : g.claimTemplates()) {
        for (var r : t.spec().requests()) {
          out.merge(r.deviceClassName(), g.replicas() * r.count(), Integer::sum);
        }
      }
    }
    return out;
  }
}
