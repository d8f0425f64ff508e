package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.admission.AdmissionController;
import dev.quartermaster.control.cluster.Informers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An evicted admission is released only once its workload's tasks are gone, never in the write that
 * evicts it (campaign seed 347: a queue set to {@code overQuota: Evict} had its quota lowered; the
 * admission controller evicted a job and released it in one ledger write, its task just made and
 * not in the cache yet, which then ran unadmitted: ADMIT). Here the task is held out of the cache:
 * the entry stays, evicting, while the task is there.
 */
class EvictionReleaseTest {
  @Test
  void anEvictionIsNotReleasedWhileATaskTheCacheHasNotShownIsThere() {
    var c = new SimCluster(1, WatchFaults.NONE);
    var held = new HeldTaskWatch(c.api());
    var informers = new Informers(c.env(), held);
    informers.start();
    var admission = new AdmissionController(c.env(), c.api(), informers, EventRecorder.NONE);
    admission.startLeading();
    admission.loop().start();
    c.api().create(Worlds.gpuQueue("team", "c", 4));
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpus", "gpu", 2, List.of())), Optional.empty()));
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of());
    var group = new WorkerGroup("w", 1, template, List.of(claim), null);
    var w =
        c.api()
            .create(
                new Workload(
                    ObjectMeta.named("job"),
                    new WorkloadSpec(List.of(group), Optional.empty())
                        .inQueue("team", Optional.empty()),
                    null));
    c.runUntil(() -> entry(c).isPresent(), Duration.ofSeconds(30));
    assertThat(entry(c)).as("admitted at first").isPresent();
    held.hold();
    c.api().create(Worlds.handMadeTask(w, 0));
    var q = c.api().get(Kinds.QUEUE, "team").orElseThrow();
    var lowered = q.spec().withQuota(Map.of("gpu", 1)).withOverQuota(OverQuota.Evict);
    c.api().update(new Queue(q.metadata(), lowered, q.status()));
    c.runUntil(() -> false, Duration.ofSeconds(20));
    assertThat(entry(c))
        .as("the evicted entry, kept while its task is there")
        .hasValueSatisfying(a -> assertThat(a.evicting()).isTrue());
  }

  private static Optional<dev.quartermaster.api.queue.Admitted> entry(SimCluster c) {
    return c.api()
        .get(Kinds.QUOTA_LEDGER, "c")
        .flatMap(l -> Optional.ofNullable(l.spec().admitted().get("job")));
  }
}
