package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.admission.AdmissionController;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A new leader decides on every task an earlier leader made, even one its task cache has not shown
 * yet. The workload controller (campaign seed 399: after a fail-over, a gang scaled from 3 to 2 had
 * ordinals 0 and 2 in the store and only 0 in the new leader's cache; it created ordinal 1 beside
 * the surplus 2, three live workers for two replicas, I4). Until its task cache reaches the
 * revision that fenced the earlier leader, the workload controller reads a group's tasks live.
 * Tried: trusting the cache as before creates the third worker.
 */
class NewLeaderTaskCacheTest {
  @Test
  void aNewLeaderScalesDownTheSurplusItsCacheHasNotShownBeforeCreating() {
    var live = run(true);
    assertThat(live).as("live workers after the scale to 2").hasSize(2);
  }

  @Test
  void trustingALaggingCacheCreatesAThirdWorker() {
    assertThat(run(false)).as("the naive reading: live workers").hasSize(3);
  }

  @Test
  void aNewLeaderKeepsTheAdmissionOfAWorkloadWhoseTasksItsCacheHasNotShown() {
    assertThat(admissionKept(true)).as("job still admitted while its workers are there").isTrue();
  }

  /**
   * Trusting the lagging cache, the controller would release the admission of running workers (it
   * did, before the store judged releases); the store now refuses that release while a worker runs
   * ({@code AdmittedWorkloadGuard}, seed 1837), so even the naive reading keeps it.
   */
  @Test
  void trustingALaggingCacheCannotReleaseTheAdmissionOfRunningWorkers() {
    assertThat(admissionKept(false))
        .as("the naive reading: the store keeps the admission")
        .isTrue();
  }

  /**
   * Campaign seed 1550: a workload scaled to 0 whose two workers the new leader's task cache did
   * not show was judged finished by the admission controller, and its admission released while both
   * ran (ADMIT).
   */
  private static boolean admissionKept(boolean fenced) {
    var c = new SimCluster(1, WatchFaults.NONE);
    var held = new HeldTaskWatch(c.api());
    var informers = new Informers(c.env(), held);
    informers.start();
    var admission = new AdmissionController(c.env(), c.api(), informers, EventRecorder.NONE);
    admission.startLeading();
    admission.loop().start();
    c.api()
        .create(
            new Queue(
                ObjectMeta.named("team"),
                new QueueSpec(
                    Optional.of("c"),
                    Map.of("gpu", 4),
                    Map.of(),
                    Map.of(),
                    1,
                    QueueOrdering.BestEffortFIFO),
                null));
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpus", "gpu", 1, List.of())), Optional.empty()));
    var group = new WorkerGroup("w", 2, template(), List.of(claim), null);
    var w =
        c.api()
            .create(
                new Workload(
                    ObjectMeta.named("job"),
                    new WorkloadSpec(List.of(group), Optional.empty())
                        .inQueue("team", Optional.empty()),
                    null));
    c.runUntil(() -> admitted(c, "job"), Duration.ofSeconds(30));
    assertThat(admitted(c, "job")).as("admitted at first").isTrue();
    held.hold();
    c.api().create(Worlds.handMadeTask(w, 0));
    c.api().create(Worlds.handMadeTask(w, 1));
    var now = c.api().get(Kinds.WORKLOAD, "job").orElseThrow();
    c.api().update(now.withSpec(now.spec().withGroups(List.of(group.withReplicas(0)))));
    if (fenced) {
      admission.startLeading(c.api().list(Kinds.WORKLOAD).revision());
    }
    c.runUntil(() -> false, Duration.ofSeconds(20));
    return admitted(c, "job");
  }

  private static boolean admitted(SimCluster c, String workload) {
    return c.api()
        .get(Kinds.QUOTA_LEDGER, "c")
        .map(l -> l.spec().admitted().containsKey(workload))
        .orElse(false);
  }

  private static TaskTemplate template() {
    return new TaskTemplate(
        List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of());
  }

  private static List<String> run(boolean fenced) {
    var c = new SimCluster(1, WatchFaults.NONE);
    var held = new HeldTaskWatch(c.api());
    var informers = new Informers(c.env(), held);
    informers.start();
    var group = new WorkerGroup("w", 3, template(), List.of(), null);
    var w =
        c.api()
            .create(
                new Workload(
                    ObjectMeta.named("job"),
                    new WorkloadSpec(List.of(group), Optional.empty()),
                    null));
    c.api().create(Worlds.handMadeTask(w, 0));
    c.runUntil(
        () -> informers.tasks().cache().get(TaskNames.task("job", "w", 0)).isPresent(),
        Duration.ofSeconds(10));
    // The earlier leader made ordinal 2 (its cache lags here), then the operator scaled to 2.
    held.hold();
    c.api().create(Worlds.handMadeTask(w, 2));
    var scaled = c.api().get(Kinds.WORKLOAD, "job").orElseThrow();
    c.api().update(scaled.withSpec(scaled.spec().withGroups(List.of(group.withReplicas(2)))));
    long fence = c.api().list(Kinds.WORKLOAD).revision();
    var controller =
        new WorkloadController(
            c.env(),
            c.api(),
            informers,
            WorkloadOptions.of(WorkloadController.DEFAULT_EXPECTATION_BOUND));
    if (fenced) {
      controller.startLeading(fence);
    }
    controller.loop().start();
    c.runUntil(() -> false, Duration.ofSeconds(20));
    return c.api().list(Kinds.TASK).items().stream()
        .filter(t -> !t.metadata().isDeleting())
        .map(t -> t.metadata().name())
        .toList();
  }
}
