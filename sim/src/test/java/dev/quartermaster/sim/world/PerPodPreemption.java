package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.workload.WorkerNames;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.TreeMap;

/**
 * The naive preemption of issue 33, as a scheduler that preempts pods does it: for a pending
 * workload of higher priority, it takes from a lower-priority admitted workload of the same queue
 * just as many workers as the newcomer needs GPUs (its highest ordinals), deletes those tasks and
 * cuts the victim's admission to what is left. The victim's gang is left running short. Run beside
 * the real control plane on a store without the quota guard (which would refuse the cut while the
 * tasks run).
 */
final class PerPodPreemption extends PeriodicHelper {

  private PerPodPreemption(Env env, ApiClient api) {
    super(env, api, Duration.ofMillis(200));
  }

  static AutoCloseable start(Env env, ApiClient api) {
    return new PerPodPreemption(env, api).begin();
  }

  @Override
  void look() {
    var priorities = priorities();
    for (var ledger : api.list(Kinds.QUOTA_LEDGER).items()) {
      var admitted = ledger.spec().admitted();
      for (var w : api.list(Kinds.WORKLOAD).items()) {
        if (admitted.containsKey(w.metadata().name()) || w.spec().priority().isEmpty()) {
          continue;
        }
        int priority = QueueOrder.priorityOf(w, priorities);
        int wanted = Demand.of(w.spec()).getOrDefault("gpu", 0);
        for (var e : admitted.entrySet()) {
          var a = e.getValue();
          int replicas = a.replicas().values().stream().mapToInt(Integer::intValue).sum();
          if (a.evicting()
              || !a.queue().equals(w.spec().queueName())
              || a.priority() >= priority
              || replicas < 2
              || a.replicas().size() != 1) {
            continue;
          }
          var group = a.replicas().keySet().iterator().next();
          int each = Math.max(1, a.usage().getOrDefault("gpu", 0) / replicas);
          int take = Math.min(replicas - 1, (wanted + each - 1) / each);
          int keep = replicas - take;
          var cut = new TreeMap<>(admitted);
          cut.put(
              e.getKey(),
              a.resized(java.util.Map.of(group, keep), java.util.Map.of("gpu", keep * each)));
          api.update(
              ledger.withSpec(
                  new dev.quartermaster.api.queue.QuotaLedgerSpec(
                      ledger.spec().queues(), cut, ledger.spec().nominated())));
          for (int o = keep; o < replicas; o++) {
            try {
              api.delete(Kinds.TASK, WorkerNames.task(e.getKey(), group, o));
            } catch (ApiException gone) {
              // already gone
            }
          }
          return; // one cut per look
        }
      }
    }
  }
}
