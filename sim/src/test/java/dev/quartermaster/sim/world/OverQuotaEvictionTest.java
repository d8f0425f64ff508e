package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.admission.Requeueing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Issue 44 item 7, "by reclaim if asked": team-a runs four 1-GPU jobs on its quota of 4; its
 * operator lowers the quota to 2 with {@code overQuota: Evict}, and team-b lends nothing. The two
 * newest jobs are evicted ({@code OverQuota}), saying why, and wait in their queue again; the two
 * oldest keep running. Every promise (Q5 included) is checked at every step; without the eviction
 * (the naive variant) Q5 catches the queue left over its quota.
 */
class OverQuotaEvictionTest {
  @Test
  void theNewestJobsAreEvictedJustEnoughAndSaySo() {
    Campaign.quiet();
    var s = new Scenario(Variant.REAL);
    s.lower();
    var said = new TreeMap<String, String>();
    assertThat(
            s.run(
                () -> {
                  for (var name : List.of("job3", "job4")) {
                    s.world
                        .api()
                        .get(Kinds.WORKLOAD, name)
                        .flatMap(
                            w ->
                                Condition.find(
                                    w.status().conditions(), WorkloadConditions.ADMITTED))
                        .filter(c -> c.reason().equals(EvictionReason.OverQuota.name()))
                        .ifPresent(c -> said.put(name, c.message()));
                  }
                  return s.ledger().spec().requeued().keySet().containsAll(List.of("job3", "job4"));
                },
                Duration.ofMinutes(1)))
        .as("job3 and job4 evicted and requeued; " + s.violations)
        .isTrue();
    assertThat(said).as("each said why while its tasks stopped").containsOnlyKeys("job3", "job4");
    assertThat(said.values())
        .allMatch(
            m ->
                m.equals(
                    "queue team-a uses more than its quota lets it hold, and is set to overQuota:"
                        + " Evict; this workload gives its share back; stopping its tasks, then it"
                        + " waits in its queue again after a backoff"));
    assertThat(s.events("OverQuota"))
        .containsExactly(
            "queue team-a is over its quota and set to overQuota: Evict (gpu: 4 used, quota 2, may"
                + " hold 2); evicted to bring it back within: its tasks are stopped, and it waits"
                + " in its queue again after a backoff");
    assertThat(s.ledger().spec().requeued().get("job4").reason())
        .isEqualTo(EvictionReason.OverQuota);
    assertThat(s.ledger().spec().admitted()).containsOnlyKeys("job1", "job2");
    assertThat(s.phase("job1-w-0")).isEqualTo(TaskPhase.Running);
    assertThat(s.phase("job2-w-0")).isEqualTo(TaskPhase.Running);
    // They wait: the queue holds all it may.
    assertThat(s.run(() -> false, Duration.ofMinutes(3))).isFalse();
    assertThat(s.violations).isEmpty();
    assertThat(s.ledger().spec().admitted()).containsOnlyKeys("job1", "job2");
  }

  @Test
  void withoutTheEvictionTheQueueStaysOverAndQ5CatchesIt() {
    Campaign.quiet();
    var s =
        new Scenario(
            Variant.planeOptions(o -> o.withRequeueing(new Requeueing(true, true, false))));
    s.lower();
    assertThat(s.run(() -> false, Duration.ofMinutes(4))).isFalse();
    assertThat(s.violations)
        .anyMatch(v -> v.startsWith("Q5: queue team-a is set to overQuota: Evict"));
    assertThat(s.ledger().spec().admitted()).containsOnlyKeys("job1", "job2", "job3", "job4");
  }

  /** Two nodes of 4 GPUs; team-a (4 GPUs) and team-b (2, lends none) in cohort lab. */
  private static final class Scenario extends CheckedWorld {

    Scenario(Variant variant) {
      super(new WholeCluster(5, 2, 4, variant));
      world.api().create(new Queue(ObjectMeta.named("team-a"), spec(4, Map.of()), null));
      world.api().create(new Queue(ObjectMeta.named("team-b"), spec(2, Map.of("gpu", 0)), null));
      for (int i = 1; i <= 4; i++) {
        var name = "job" + i;
        world.api().create(job(name));
        assertThat(run(() -> phase(name + "-w-0") == TaskPhase.Running, Duration.ofMinutes(1)))
            .as(name + " runs; " + violations)
            .isTrue();
        run(() -> false, Duration.ofSeconds(1)); // each admitted at a time of its own
      }
    }

    /** The operator lowers team-a's quota to 2 and asks for the excess back. */
    void lower() {
      var q = world.api().get(Kinds.QUEUE, "team-a").orElseThrow();
      world
          .api()
          .update(new Queue(q.metadata(), spec(2, Map.of()).withOverQuota(OverQuota.Evict), null));
    }

    private static QueueSpec spec(int gpus, Map<String, Integer> lending) {
      return new QueueSpec(
          Optional.of("lab"),
          Map.of("gpu", gpus),
          Map.of(),
          lending,
          1,
          QueueOrdering.BestEffortFIFO);
    }

    private static Workload job(String name) {
      var claim =
          new ClaimTemplate(
              "gpu",
              new ResourceClaimSpec(
                  List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()));
      var group =
          new WorkerGroup(
              "w",
              1,
              new TaskTemplate(
                  List.of(name), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
              List.of(claim),
              null);
      return new Workload(
          ObjectMeta.named(name),
          new WorkloadSpec(List.of(group), Optional.empty()).inQueue("team-a", Optional.empty()),
          WorkloadStatus.EMPTY);
    }

    dev.quartermaster.api.queue.QuotaLedger ledger() {
      return world.api().get(Kinds.QUOTA_LEDGER, "lab").orElseThrow();
    }
  }
}
