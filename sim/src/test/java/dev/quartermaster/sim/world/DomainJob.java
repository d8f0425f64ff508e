package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.domain.ComputeDomainStatus;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.store.StoreEvent;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The example's domain job for the domain tests, and the commit hook that has {@link
 * DomainPromises} judge it.
 */
final class DomainJob {
  private static final List<Kind<?>> WATCHED =
      List.of(Kinds.NODE, Kinds.RESOURCE_CLAIM, Kinds.TASK);

  private DomainJob() {}

  /** Every commit of {@code world} judged by {@code promises}. */
  static void judgedBy(WholeCluster world, DomainPromises promises) {
    world
        .store()
        .onCommit((revision, changes) -> changes.forEach(e -> judge(promises, revision, e)));
  }

  /** Domain {@code nvlink} over two nodes. */
  static ComputeDomain domain() {
    return new ComputeDomain(
        ObjectMeta.named("nvlink"), new ComputeDomainSpec(2), ComputeDomainStatus.EMPTY);
  }

  /** Job {@code job}: two workers of 4 GPUs each (one per node) in domain nvlink. */
  static Workload job() {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var claim =
        new ClaimTemplate(
            "gpus",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpus", "gpu", 4, List.of())), Optional.empty()));
    var group = new WorkerGroup("workers", 2, template, List.of(claim), null);
    return new Workload(
        ObjectMeta.named("job"),
        new WorkloadSpec(List.of(group), Optional.of("nvlink")),
        WorkloadStatus.EMPTY);
  }

  private static void judge(DomainPromises promises, long revision, StoreEvent e) {
    for (var kind : WATCHED) {
      var prefix = "/registry/" + kind.plural() + "/";
      if (e.kv().key().startsWith(prefix)) {
        boolean deleted = e.type() == StoreEvent.Type.DELETE;
        var value = deleted ? e.previous().orElseThrow().value() : e.kv().value();
        promises.changed(revision, ObjectCodec.fromJson(value, kind), deleted);
      }
    }
  }
}
