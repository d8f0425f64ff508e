package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A naive reading of "a lowered quota takes effect as workloads finish": the cohort keeps what it
 * used when its quota was lowered under it, and what finishes (or is evicted, or scaled down)
 * meanwhile is handed to the next waiting workloads, up to that level, instead of letting the
 * excess go down. Run beside the real control plane on a store without the quota guard (which
 * refuses an entry that grows a class its cohort is over quota of). Caught by Q1's second form: a
 * workload admitted more of a class while its cohort is over its quota of it.
 */
final class GrandfatheredQuota extends PeriodicHelper {
  private static final String GPU = "gpu";

  /** Cohort → the GPUs it used when it was first seen over its quota of them. */
  private final Map<String, Long> keeps = new HashMap<>();

  private GrandfatheredQuota(Env env, ApiClient api) {
    super(env, api, Duration.ofMillis(200));
  }

  static AutoCloseable start(Env env, ApiClient api) {
    return new GrandfatheredQuota(env, api).begin();
  }

  @Override
  void look() {
    var queues = api.list(Kinds.QUEUE).items();
    var workloads = api.list(Kinds.WORKLOAD).items();
    var priorities = priorities();
    for (var ledger : api.list(Kinds.QUOTA_LEDGER).items()) {
      var cohort = ledger.metadata().name();
      var specs = new TreeMap<String, QueueSpec>();
      queues.stream()
          .filter(q -> q.cohort().equals(cohort))
          .forEach(q -> specs.put(q.metadata().name(), q.spec()));
      var admitted = ledger.spec().admitted();
      var quota = CohortQuota.of(specs, admitted);
      long used = specs.keySet().stream().mapToLong(q -> quota.used(q, GPU)).sum();
      if (quota.breach(List.of(GPU)).isEmpty()) {
        keeps.remove(cohort);
        continue;
      }
      long keep = keeps.merge(cohort, used, Math::max);
      // Waiting: not admitted, or admitted and scaled up (a scale-up is admitted again whole).
      var waiting =
          workloads.stream()
              .filter(w -> specs.containsKey(w.spec().queueName()))
              .filter(w -> !w.metadata().isDeleting() && !finished(w))
              .filter(
                  w -> {
                    var a = admitted.get(w.metadata().name());
                    return a == null
                        || (!a.evicting()
                            && Demand.of(w.spec()).getOrDefault(GPU, 0)
                                > a.usage().getOrDefault(GPU, 0));
                  })
              .sorted(QueueOrder.of(priorities))
              .toList();
      for (var w : waiting) {
        var demand = Demand.of(w.spec());
        var was = java.util.Optional.ofNullable(admitted.get(w.metadata().name()));
        long more =
            demand.getOrDefault(GPU, 0) - was.map(a -> a.usage().getOrDefault(GPU, 0)).orElse(0);
        if (used + more > keep) {
          continue;
        }
        var replicas =
            w.spec().groups().stream()
                .collect(Collectors.toMap(WorkerGroup::name, WorkerGroup::replicas));
        var next = new TreeMap<>(admitted);
        next.put(
            w.metadata().name(),
            was.map(a -> a.resized(replicas, demand))
                .orElseGet(
                    () ->
                        new Admitted(
                            w.metadata().uid(),
                            w.spec().queueName(),
                            replicas,
                            demand,
                            QueueOrder.priorityOf(w, priorities),
                            env.now())));
        api.update(
            ledger.withSpec(
                new QuotaLedgerSpec(ledger.spec().queues(), next, ledger.spec().nominated())));
        return; // one admission per look
      }
    }
  }

  private static boolean finished(dev.quartermaster.api.workload.Workload w) {
    return Condition.find(w.status().conditions(), WorkloadConditions.ADMITTED)
        .filter(c -> c.reason().equals(WorkloadConditions.FINISHED))
        .isPresent();
  }
}
