package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The anti-cycle rule in the whole cluster (agents, both control-plane replicas): P reclaims from
 * V, then the operator turns the quotas round so that V's queue is within its quota and P's
 * borrows. Reclaim would now be rightful for V against P but for the rule: the real system leaves P
 * running and V waiting; the naive variant ({@link CounterReclaim}, no rule, on a store without the
 * quota guard that would refuse it) evicts P back, and Q2 catches the cycle.
 */
class QueueCycleTest {
  private static Workload job(String name, String queue) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpus", "gpu", 4, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
            "w",
            1,
            new TaskTemplate(
                List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
            List.of(claim),
            RestartPolicy.Never);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(group), Optional.empty()).inQueue(queue, Optional.empty()),
        null);
  }

  private static QueueSpec gpus(int n) {
    return new QueueSpec(
        Optional.of("c"), Map.of("gpu", n), Map.of(), Map.of(), 1, QueueOrdering.StrictFIFO);
  }

  /** What a run of the scenario came to: the Q2 violations at any step; whether p is still in. */
  private record Outcome(List<String> q2, boolean pKept) {}

  private static Outcome run(Variant variant) {
    var w = new WholeCluster(33, 2, 4, variant);
    var promises = new QueuePromises(w, new StartPromises(w));
    var seen = new ArrayList<String>();
    var api = w.api();
    api.create(new Queue(ObjectMeta.named("qp"), gpus(4), null));
    api.create(new Queue(ObjectMeta.named("qv"), gpus(2), null));
    api.create(job("v", "qv"));
    await(w, promises, seen, "v admitted", () -> admitted(w, "v"));
    api.create(job("p", "qp"));
    await(w, promises, seen, "p admitted, reclaiming v", () -> admitted(w, "p"));
    quota(w, "qv", 4);
    quota(w, "qp", 2);
    for (int i = 0; i < 600; i++) {
      w.env().advance(Duration.ofMillis(100));
      promises.check(seen);
    }
    return new Outcome(seen.stream().filter(l -> l.startsWith("Q2")).toList(), admitted(w, "p"));
  }

  @Test
  void aReclaimedWorkloadNeverReclaimsFromItsReclaimer() {
    var real = run(Variant.REAL);
    assertThat(real.q2()).isEmpty();
    assertThat(real.pKept()).as("p still admitted, v waiting").isTrue();
  }

  @Test
  void withoutTheRuleItDoesAndQ2CatchesTheCycle() {
    var caught = run(Variant.REAL.withoutQuotaGuard().withAlongside(CounterReclaim::start));
    assertThat(caught.q2()).anyMatch(l -> l.contains("(a cycle)"));
  }

  private static boolean admitted(WholeCluster w, String name) {
    return w.api().list(Kinds.QUOTA_LEDGER).items().stream()
        .anyMatch(
            l ->
                l.spec().admitted().containsKey(name) && !l.spec().admitted().get(name).evicting());
  }

  private static void quota(WholeCluster w, String queue, int gpus) {
    var q = w.api().get(Kinds.QUEUE, queue).orElseThrow();
    w.api().update(new Queue(q.metadata(), gpus(gpus), q.status()));
  }

  private static void await(
      WholeCluster w, QueuePromises p, List<String> seen, String what, BooleanSupplier done) {
    for (int i = 0; i < 1_200 && !done.getAsBoolean(); i++) {
      w.env().advance(Duration.ofMillis(100));
      p.check(seen);
    }
    assertThat(done.getAsBoolean()).as("%s within two simulated minutes", what).isTrue();
  }
}
