package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.TreeMap;

/**
 * Reclaim without the anti-cycle rule (issue 33's third naive variant): a waiting workload whose
 * queue would stay within its nominal quota reclaims from an admitted workload of a queue that
 * borrows, the one that evicted it included ({@code Admitted.preempted} is not looked at). Run
 * beside the real control plane on a store without the quota guard (which would refuse it).
 */
final class CounterReclaim extends PeriodicHelper {

  private CounterReclaim(Env env, ApiClient api) {
    super(env, api, Duration.ofMillis(200));
  }

  static AutoCloseable start(Env env, ApiClient api) {
    return new CounterReclaim(env, api).begin();
  }

  @Override
  void look() {
    var priorities = priorities();
    var specs = new HashMap<String, QueueSpec>();
    api.list(Kinds.QUEUE).items().forEach(q -> specs.put(q.metadata().name(), q.spec()));
    var workloads = api.list(Kinds.WORKLOAD).items();
    for (var ledger : api.list(Kinds.QUOTA_LEDGER).items()) {
      var admitted = ledger.spec().admitted();
      var cohort = new HashMap<String, QueueSpec>();
      ledger.spec().queues().stream()
          .filter(specs::containsKey)
          .forEach(q -> cohort.put(q, specs.get(q)));
      var quota = CohortQuota.of(cohort, admitted);
      for (var w : workloads) {
        var name = w.metadata().name();
        if (admitted.containsKey(name)
            || ledger.spec().nominated().containsKey(name)
            || !cohort.containsKey(w.spec().queueName())
            || !quota.withinNominal(w.spec().queueName(), Demand.of(w.spec()))) {
          continue;
        }
        for (var e : admitted.entrySet()) {
          var a = e.getValue();
          boolean borrows =
              a.usage().keySet().stream().anyMatch(c -> quota.borrowed(a.queue(), c) > 0);
          if (a.evicting() || a.queue().equals(w.spec().queueName()) || !borrows) {
            continue;
          }
          var next = new TreeMap<>(admitted);
          next.put(
              e.getKey(),
              a.evictedBy(
                  new Eviction(name, w.metadata().uid(), EvictionReason.Reclaimed, env.now())));
          var nominated = new TreeMap<>(ledger.spec().nominated());
          nominated.put(
              name,
              new Nomination(
                  w.metadata().uid(),
                  w.spec().queueName(),
                  QueueOrder.priorityOf(w, priorities),
                  List.of(a.uid()),
                  env.now()));
          api.update(ledger.withSpec(new QuotaLedgerSpec(ledger.spec().queues(), next, nominated)));
          return; // one eviction per look
        }
      }
    }
  }
}
