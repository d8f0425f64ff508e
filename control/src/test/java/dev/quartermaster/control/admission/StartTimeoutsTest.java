package dev.quartermaster.control.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 44 item 5: an admitted workload that does not run within its start timeout gives its quota
 * back (its entry evicted, {@code StartTimeout}); one that ran keeps it for good; the wait is timed
 * on the controller's monotonic clock from when it first saw the admission.
 */
class StartTimeoutsTest {
  private final DeterministicEnv env = new DeterministicEnv(44);
  private final StartTimeouts timeouts = new StartTimeouts(env);
  private final List<Task> tasks = new ArrayList<>();

  private static final QueueSpec LIMITED =
      new QueueSpec(
          Optional.of("c"), Map.of("gpu", 4), Map.of(), Map.of(), 1, QueueOrdering.StrictFIFO);

  /** {@code big}: 1 worker of 4 GPUs, start timeout 60 s, in queue team. */
  private static Workload big(Optional<GangSpec> gang, int replicas) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", 4, List.of())), Optional.empty()));
    var group =
        new WorkerGroup("w", replicas, TaskTemplate.EMPTY, List.of(claim), RestartPolicy.OnFailure);
    var spec =
        new WorkloadSpec(List.of(gang.map(group::withGang).orElse(group)), Optional.empty())
            .inQueue("team", Optional.empty())
            .withStartTimeout(60);
    return new Workload(ObjectMeta.named("big").withUid("uid-big"), spec, null);
  }

  private static Admitted entry(int replicas, Instant at) {
    return new Admitted("uid-big", "team", Map.of("w", replicas), Map.of("gpu", 4), 0, at);
  }

  private void task(int ordinal, TaskPhase phase) {
    var status =
        new TaskStatus(
            phase,
            "",
            "",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of());
    tasks.add(
        new Task(
            ObjectMeta.named("big-w-" + ordinal)
                .withOwner(new OwnerReference("Workload", "big", "uid-big")),
            TaskSpec.EMPTY,
            status));
  }

  private StartTimeouts.Look look(Workload w, Admitted a, QueueSpec queue) {
    return timeouts.look(
        "c",
        Map.of("big", a),
        Map.of("big", w),
        Map.of("team", queue),
        (x, g) -> dev.quartermaster.api.workload.GroupTaskCounts.of(tasks, x.metadata().uid()));
  }

  @Test
  void anAdmissionThatDoesNotRunWithinItsTimeoutGivesItsQuotaBack() {
    var w = big(Optional.empty(), 1);
    var a = entry(1, env.now());
    task(0, TaskPhase.Pending);

    var first = look(w, a, LIMITED);
    assertThat(first.admitted().get("big")).isEqualTo(a);
    assertThat(first.recheck()).contains(Duration.ofSeconds(60));

    env.advance(Duration.ofSeconds(59));
    assertThat(look(w, a, LIMITED).recheck()).contains(Duration.ofSeconds(1));

    env.advance(Duration.ofSeconds(1));
    var due = look(w, a, LIMITED);
    var evicted = due.admitted().get("big");
    assertThat(evicted.eviction().orElseThrow().reason()).isEqualTo(EvictionReason.StartTimeout);
    assertThat(evicted.eviction().orElseThrow().by()).isEmpty();
    assertThat(due.timedOut()).containsEntry("big", "w 0 of 1 running");
  }

  @Test
  void anAdmissionThatRanIsMarkedStartedAndKeepsItsQuotaForGood() {
    var w = big(Optional.empty(), 2);
    var a = entry(2, env.now());
    task(0, TaskPhase.Running);
    task(1, TaskPhase.Succeeded);
    var started = look(w, a, LIMITED).admitted().get("big");
    assertThat(started.started()).isTrue();

    tasks.clear();
    task(0, TaskPhase.Failed);
    env.advance(Duration.ofMinutes(10));
    assertThat(look(w, started, LIMITED).admitted().get("big")).isEqualTo(started);
  }

  @Test
  void aGangNeedsItsShareRunningAndAQueueWithoutQuotaOnWhatItUsesTimesNothing() {
    var gang =
        new GangSpec(Optional.of(2), MemberFailurePolicy.RestartMember, GangTopology.ANYWHERE);
    var w = big(Optional.of(gang), 3);
    var a = entry(3, env.now());
    task(0, TaskPhase.Running);
    task(1, TaskPhase.Running);
    task(2, TaskPhase.Pending);
    assertThat(look(w, a, LIMITED).admitted().get("big").started())
        .as("minMember 2 of 3 running")
        .isTrue();

    tasks.clear();
    task(0, TaskPhase.Running);
    var unlimited = QueueSpec.UNLIMITED;
    look(w, a, unlimited);
    env.advance(Duration.ofHours(1));
    var kept = look(w, a, unlimited);
    assertThat(kept.admitted().get("big")).isEqualTo(a);
    assertThat(kept.recheck()).isEmpty();
  }

  @Test
  void aNewAdmissionIsTimedAfresh() {
    var w = big(Optional.empty(), 1);
    look(w, entry(1, env.now()), LIMITED);
    env.advance(Duration.ofSeconds(50));
    var again = entry(1, env.now());
    assertThat(look(w, again, LIMITED).recheck()).contains(Duration.ofSeconds(60));
  }
}
