package dev.quartermaster.control.admission;

import dev.quartermaster.api.workload.Workload;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Map;

/**
 * A decision's second step: the workloads that preempted go first, each admitted once it fits —
 * what their victims gave back is theirs — keeping whom they evicted (the anti-cycle rule).
 */
final class AdmitNominated {
  private AdmitNominated() {}

  /**
   * Admits into {@code next} each nominated workload of {@code pending} that fits, in {@code
   * order}, and takes it out of {@code pending} (a queue left empty goes).
   */
  static void run(
      CohortSnapshot s,
      NextLedger next,
      Map<String, ArrayDeque<Workload>> pending,
      Comparator<Workload> order) {
    var first =
        pending.values().stream()
            .flatMap(ArrayDeque::stream)
            .filter(w -> next.nominated.containsKey(w.metadata().name()))
            .sorted(order)
            .toList();
    for (var w : first) {
      var queue = w.spec().queueName();
      var demand = s.demand(w.spec());
      if (next.quota.fits(queue, demand)) {
        next.admitNominated(s, w, demand);
        pending.get(queue).remove(w);
      }
    }
    pending.values().removeIf(ArrayDeque::isEmpty);
  }
}
