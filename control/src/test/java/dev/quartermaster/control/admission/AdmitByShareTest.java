package dev.quartermaster.control.admission;

import static dev.quartermaster.control.admission.Cohorts.queue;
import static dev.quartermaster.control.admission.Cohorts.snapshot;
import static dev.quartermaster.control.admission.Cohorts.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.policy.AdmissionOrder;
import dev.quartermaster.control.admission.policy.FairShareOrder;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/** A decision's third step alone: queues take turns, and what does not fit is blocked. */
class AdmitByShareTest {
  private static final List<dev.quartermaster.api.queue.Queue> QUEUES =
      List.of(
          queue("strict", 2, QueueOrdering.StrictFIFO, 1),
          queue("loose", 2, QueueOrdering.BestEffortFIFO, 1));

  /** The admitted, in order, and the blocked, of one run over {@code pending}. */
  private static Map<String, List<String>> run(
      Map<String, List<Workload>> pending, AdmissionOrder order) {
    var all = pending.values().stream().flatMap(List::stream).toList();
    var s = snapshot(QUEUES, QuotaLedgerSpec.EMPTY, all, WorkloadFacts.NONE);
    var next = new NextLedger(s, CarryOver.of(s));
    var queues = new HashMap<String, ArrayDeque<Workload>>();
    pending.forEach((q, ws) -> queues.put(q, new ArrayDeque<>(ws)));
    var blocked = new AdmitByShare(s, next, queues, next.quota.copy(), order).run();
    var out = new HashMap<String, List<String>>();
    out.put("admitted", List.copyOf(next.admitted));
    blocked.forEach((q, ws) -> out.put(q, ws.stream().map(w -> w.metadata().name()).toList()));
    return out;
  }

  @Test
  void aStrictQueueStopsAtItsHeadAndABestEffortOnePassesIt() {
    var plan =
        run(
            Map.of(
                "strict", List.of(workload("s-big", "strict", 5), workload("s-small", "strict", 1)),
                "loose", List.of(workload("l-big", "loose", 5), workload("l-small", "loose", 1))),
            new FairShareOrder());

    assertThat(plan.get("admitted")).containsExactly("l-small");
    assertThat(plan.get("strict")).containsExactly("s-big");
    assertThat(plan.get("loose")).containsExactly("l-big");
  }

  /**
   * The order is the policy's: one that always gives queue "strict" its turn first admits its
   * workloads before the other queue's, where fair share alternates.
   */
  @Test
  void whoseTurnItIsIsTheOrdersToSay() {
    AdmissionOrder strictFirst =
        new AdmissionOrder() {
          @Override
          public Comparator<Workload> within(Map<String, Integer> priorities) {
            return QueueOrder.of(priorities);
          }

          @Override
          public ToDoubleFunction<String> across(Map<String, QueueSpec> specs, QuotaTally quota) {
            return q -> q.equals("strict") ? 0 : 1;
          }
        };
    var pending =
        Map.of(
            "strict", List.of(workload("s1", "strict", 1), workload("s2", "strict", 1)),
            "loose", List.of(workload("l1", "loose", 1), workload("l2", "loose", 1)));

    assertThat(run(pending, strictFirst).get("admitted")).containsExactly("s1", "s2", "l1", "l2");
    assertThat(run(pending, new FairShareOrder()).get("admitted"))
        .containsExactly("l1", "s1", "l2", "s2");
  }
}
