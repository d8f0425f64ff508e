package dev.quartermaster.control.admission.policy;

import dev.quartermaster.api.queue.Counts;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.workload.Workload;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Today's order: within a queue, higher priority first, then older, then by name ({@link
 * QueueOrder}, which {@code describe} and the simulation read too); across queues, the lowest
 * weighted dominant share first — a queue's largest used/cohort-quota over the classes the cohort
 * has quota of, over its weight — so borrowing goes to the queues that use least for their weight.
 */
public record FairShareOrder() implements AdmissionOrder {
  @Override
  public Comparator<Workload> within(Map<String, Integer> priorities) {
    return QueueOrder.of(priorities);
  }

  @Override
  public ToDoubleFunction<String> across(Map<String, QueueSpec> specs, QuotaTally quota) {
    // In long: two queues of quota Integer.MAX_VALUE overflow an int.
    var totals = new HashMap<String, Long>();
    specs
        .values()
        .forEach(q -> q.quota().forEach((c, n) -> totals.merge(c, (long) n, Counts::sum)));
    return queue -> dominantShare(queue, totals, quota) / specs.get(queue).weight();
  }

  /**
   * The largest, over the classes the cohort has quota of ({@code totals}: class → the cohort's
   * nominal quota), of this queue's used / cohort quota.
   */
  private static double dominantShare(String queue, Map<String, Long> totals, QuotaTally quota) {
    double share = 0;
    for (var e : totals.entrySet()) {
      if (e.getValue() > 0) {
        share = Math.max(share, quota.used(queue, e.getKey()) / (double) e.getValue());
      }
    }
    return share;
  }
}
