package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * One cohort as an admission decision reads it, once: every step of the decision works over this.
 *
 * @param specs its queues, by name
 * @param ledger its ledger as read
 * @param workloads the workloads that name its queues or hold its entries
 * @param byName the same, by name
 * @param priorities priority class → its value
 * @param facts what the controller learned from their tasks
 * @param channelsPerTask compute domain → the IMEX channels it gives each task ({@link Demand})
 * @param migComputeSlices device class → the MIG compute slices one device of it costs ({@link
 *     dev.quartermaster.api.device.mig.MigCharge})
 * @param now the decision's time
 */
record CohortSnapshot(
    SortedMap<String, QueueSpec> specs,
    QuotaLedgerSpec ledger,
    List<Workload> workloads,
    Map<String, Workload> byName,
    Map<String, Integer> priorities,
    WorkloadFacts facts,
    ToIntFunction<String> channelsPerTask,
    ToIntFunction<String> migComputeSlices,
    Instant now) {

  /** As below, with no MIG class (tests of other things). */
  static CohortSnapshot of(
      List<Queue> queues,
      QuotaLedgerSpec ledger,
      List<Workload> workloads,
      Map<String, Integer> priorities,
      WorkloadFacts facts,
      ToIntFunction<String> channelsPerTask,
      Instant now) {
    return of(queues, ledger, workloads, priorities, facts, channelsPerTask, c -> 0, now);
  }

  static CohortSnapshot of(
      List<Queue> queues,
      QuotaLedgerSpec ledger,
      List<Workload> workloads,
      Map<String, Integer> priorities,
      WorkloadFacts facts,
      ToIntFunction<String> channelsPerTask,
      ToIntFunction<String> migComputeSlices,
      Instant now) {
    var specs = new TreeMap<String, QueueSpec>();
    queues.forEach(q -> specs.put(q.metadata().name(), q.spec()));
    var byName = new HashMap<String, Workload>();
    workloads.forEach(w -> byName.put(w.metadata().name(), w));
    return new CohortSnapshot(
        specs,
        ledger,
        workloads,
        byName,
        priorities,
        facts,
        channelsPerTask,
        migComputeSlices,
        now);
  }

  /** What {@code spec} uses, admitted whole. */
  Map<String, Integer> demand(WorkloadSpec spec) {
    return Demand.of(spec, channelsPerTask, migComputeSlices);
  }

  /** {@code w}'s priority, by its class. */
  int priority(Workload w) {
    return QueueOrder.priorityOf(w, priorities);
  }

  /** Whether {@code w}'s job is over. */
  boolean finished(String workload) {
    return facts.finished().contains(workload);
  }

  /** Group → replicas, of {@code spec}. */
  static Map<String, Integer> replicasOf(WorkloadSpec spec) {
    return spec.groups().stream()
        .collect(
            Collectors.toMap(WorkerGroup::name, WorkerGroup::replicas, (a, b) -> a, TreeMap::new));
  }
}
