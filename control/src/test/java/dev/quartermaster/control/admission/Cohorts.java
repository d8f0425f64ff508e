package dev.quartermaster.control.admission;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A cohort of GPU queues and one-group workloads, as the admission tests make them. */
final class Cohorts {
  static final Instant NOW = Instant.parse("2026-11-27T08:00:00Z");

  /** Each workload made is created a second after the one before: older ones go first. */
  private static final AtomicInteger CREATED = new AtomicInteger();

  private Cohorts() {}

  static Queue queue(String name, int gpus, QueueOrdering ordering, int weight) {
    return new Queue(
        ObjectMeta.named(name),
        new QueueSpec(Optional.of("c"), Map.of("gpu", gpus), Map.of(), Map.of(), weight, ordering),
        null);
  }

  static Workload workload(String name, String queue, int gpus, Optional<String> priority) {
    return workload(name, queue, gpus, priority, "gpu");
  }

  static Workload workload(
      String name, String queue, int gpus, Optional<String> priority, String deviceClass) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", deviceClass, gpus, List.of())), Optional.empty()));
    var group =
        new WorkerGroup("w", 1, TaskTemplate.EMPTY, List.of(claim), RestartPolicy.OnFailure);
    var meta =
        new ObjectMeta(
            name,
            "uid-" + name,
            1,
            1,
            Map.of(),
            Optional.of(NOW.plusSeconds(CREATED.getAndIncrement())),
            Optional.empty(),
            List.of(),
            Optional.empty());
    return new Workload(
        meta, new WorkloadSpec(List.of(group), Optional.empty()).inQueue(queue, priority), null);
  }

  static Workload workload(String name, String queue, int gpus) {
    return workload(name, queue, gpus, Optional.empty());
  }

  static Workload scaled(Workload w, int replicas) {
    var groups = w.spec().groups().stream().map(g -> g.withReplicas(replicas)).toList();
    return new Workload(
        w.metadata(),
        new WorkloadSpec(groups, Optional.empty()).inQueue(w.spec().queueName(), Optional.empty()),
        null);
  }

  /**
   * A snapshot of {@code queues}, {@code ledger} and {@code workloads}, priority class high = 100.
   */
  static CohortSnapshot snapshot(
      List<Queue> queues, QuotaLedgerSpec ledger, List<Workload> workloads, WorkloadFacts facts) {
    return CohortSnapshot.of(queues, ledger, workloads, Map.of("high", 100), facts, d -> 1, NOW);
  }
}
