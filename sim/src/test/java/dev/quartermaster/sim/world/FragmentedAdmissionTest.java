package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.queue.EvictionReason;
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
import org.junit.jupiter.api.Test;

/**
 * Issue 44 item 5, as reported: a workload admitted by quota but not placeable (the free GPUs
 * fragmented: 2 on each of two nodes, it needs 4 on one) held its queue's quota for ever, and a
 * smaller workload that would run waited behind it. With the start timeout it gives its quota back
 * after 30 s, the smaller one is admitted and runs, and the large one waits in its queue again
 * after a backoff, saying so. Every promise (Q3 and Q4 included) is checked at every step.
 */
class FragmentedAdmissionTest {
  @Test
  void anAdmissionThatCannotBePlacedGivesItsQuotaBackAndIsRequeuedWithABackoff() {
    Campaign.quiet();
    var s = new Scenario(Variant.REAL);
    assertThat(s.run(() -> s.phase("small-w-0") == TaskPhase.Running, Duration.ofMinutes(2)))
        .as("the small job runs on the quota the large one gave back; " + s.violations)
        .isTrue();
    assertThat(s.events("StartTimeout"))
        .containsExactly(
            "not running 30s after its admission (w 0 of 1 running); its quota goes back to queue"
                + " team, its tasks are stopped, and it waits in its queue again after a backoff");
    assertThat(s.events("Requeued"))
        .containsExactly(
            "waits in queue team again after its eviction (StartTimeout); admitted no sooner than"
                + " 10s from now (the backoff doubles with each eviction in a row, up to 5 min)");
    var big = s.world.api().get(Kinds.WORKLOAD, "big").orElseThrow();
    var ledger = s.world.api().get(Kinds.QUOTA_LEDGER, "team").orElseThrow();
    assertThat(ledger.spec().admitted()).containsOnlyKeys("small");
    assertThat(ledger.spec().requeued().get("big").reason()).isEqualTo(EvictionReason.StartTimeout);
    assertThat(Condition.find(big.status().conditions(), WorkloadConditions.ADMITTED))
        .hasValueSatisfying(
            c -> assertThat(c.reason()).isIn(WorkloadConditions.BACKING_OFF, "Pending"));
  }

  @Test
  void withoutTheStartTimeoutTheLargeJobHoldsTheQuotaForEver() {
    Campaign.quiet();
    var s = new Scenario(Variant.planeOptions(o -> o.withRequeueing(new Requeueing(false, false))));
    assertThat(s.run(() -> s.phase("small-w-0") == TaskPhase.Running, Duration.ofMinutes(5)))
        .isFalse();
    assertThat(s.violations).anyMatch(v -> v.startsWith("Q3: workload big admitted"));
    var ledger = s.world.api().get(Kinds.QUOTA_LEDGER, "team").orElseThrow();
    assertThat(ledger.spec().admitted()).containsOnlyKeys("big");
  }

  /** Two nodes of 4 GPUs with 2 taken on each; queue team of 4 GPUs; big (4) then small (2). */
  private static final class Scenario extends CheckedWorld {

    Scenario(Variant variant) {
      super(new WholeCluster(5, 2, 4, variant));
      // The fillers run in the default queue (no quota), one on each node.
      fillOn("node-1", "node-2");
      fillOn("node-2", "node-1");
      world
          .api()
          .create(
              new Queue(
                  ObjectMeta.named("team"),
                  new QueueSpec(
                      Optional.empty(),
                      Map.of("gpu", 4),
                      Map.of(),
                      Map.of(),
                      1,
                      QueueOrdering.BestEffortFIFO),
                  null));
      world.api().create(job("big", 4, Optional.of("team")));
      assertThat(
              run(
                  () ->
                      world
                          .api()
                          .get(Kinds.QUOTA_LEDGER, "team")
                          .filter(l -> l.spec().admitted().containsKey("big"))
                          .isPresent(),
                  Duration.ofSeconds(20)))
          .as("big admitted")
          .isTrue();
      world.api().create(job("small", 2, Optional.of("team")));
    }

    private void fillOn(String node, String other) {
      world.nodeSpec(other, sp -> new NodeSpec(true, false));
      var name = "fill-" + node;
      world.api().create(job(name, 2, Optional.empty()));
      assertThat(run(() -> phase(name + "-w-0") == TaskPhase.Running, Duration.ofMinutes(1)))
          .as(name + " runs")
          .isTrue();
      world.nodeSpec(other, sp -> new NodeSpec(false, false));
    }

    private static Workload job(String name, int gpus, Optional<String> queue) {
      var claim =
          new ClaimTemplate(
              "gpu",
              new ResourceClaimSpec(
                  List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()));
      var group =
          new WorkerGroup(
              "w",
              1,
              new TaskTemplate(
                  List.of(name), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
              List.of(claim),
              null);
      var spec = new WorkloadSpec(List.of(group), Optional.empty());
      if (queue.isPresent()) {
        spec = spec.inQueue(queue.get(), Optional.empty()).withStartTimeout(30);
      }
      return new Workload(ObjectMeta.named(name), spec, WorkloadStatus.EMPTY);
    }
  }
}
