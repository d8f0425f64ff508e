package dev.quartermaster.api.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link JobEnd}: when a workload's job is over, from its tasks and restart policies. */
class JobEndTest {
  private static final String WORKLOAD = "train";
  private static final String UID = "w-uid";

  private static WorkerGroup group(int replicas, RestartPolicy policy) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    return new WorkerGroup("w", replicas, template, List.of(), policy);
  }

  private static Task task(int ordinal, String ownerUid, TaskPhase phase, boolean deleting) {
    var meta =
        ObjectMeta.named(TaskNames.task(WORKLOAD, "w", ordinal))
            .withUid("t" + ordinal)
            .withOwner(new OwnerReference("Workload", WORKLOAD, ownerUid));
    if (deleting) {
      meta = meta.withDeletedAt(Instant.parse("2026-03-01T12:00:00Z"));
    }
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
    return new Task(meta, null, status);
  }

  private static Task ours(int ordinal, TaskPhase phase) {
    return task(ordinal, UID, phase, false);
  }

  /** When a group's job is over, and its quota may go back to its queue. */
  @Test
  void aGroupIsFinishedOnlyOnceNoTaskRunsOrWillRunAgain() {
    var never = group(2, RestartPolicy.Never);
    var onFailure = group(2, RestartPolicy.OnFailure);
    var always = group(2, RestartPolicy.Always);
    var bothDone = List.of(ours(0, TaskPhase.Succeeded), ours(1, TaskPhase.Failed));
    assertThat(JobEnd.reached(never, UID, bothDone)).isTrue();
    assertThat(JobEnd.reached(onFailure, UID, bothDone)).as("the failed one is replaced").isFalse();
    assertThat(JobEnd.reached(always, UID, bothDone)).isFalse();
    assertThat(
            JobEnd.reached(
                onFailure,
                UID,
                List.of(ours(0, TaskPhase.Succeeded), ours(1, TaskPhase.Succeeded))))
        .isTrue();
    assertThat(
            JobEnd.reached(
                never,
                UID,
                List.of(ours(0, TaskPhase.Succeeded), task(1, UID, TaskPhase.Running, true))))
        .as("a task being deleted still runs")
        .isFalse();
    assertThat(JobEnd.reached(never, UID, List.of(ours(0, TaskPhase.Succeeded))))
        .as("one of two replicas has not run yet")
        .isFalse();
    assertThat(JobEnd.reached(group(0, RestartPolicy.Always), UID, List.of())).isTrue();
  }

  @Test
  void aTaskOfAnotherOwnerDoesNotCount() {
    var never = group(1, RestartPolicy.Never);
    assertThat(JobEnd.reached(never, UID, List.of(task(0, "other", TaskPhase.Succeeded, false))))
        .isFalse();
  }

  /** Which ended phases each policy replaces: the table the controller and admission share. */
  @Test
  void eachPolicyReplacesWhatItSays() {
    assertThat(RestartPolicy.OnFailure.replaces(TaskPhase.Failed)).isTrue();
    assertThat(RestartPolicy.OnFailure.replaces(TaskPhase.Succeeded)).isFalse();
    assertThat(RestartPolicy.Always.replaces(TaskPhase.Succeeded)).isTrue();
    assertThat(RestartPolicy.Always.replaces(TaskPhase.Failed)).isTrue();
    assertThat(RestartPolicy.Never.replaces(TaskPhase.Failed)).isFalse();
    for (var policy : RestartPolicy.values()) {
      assertThat(policy.replaces(TaskPhase.Running)).isFalse();
      assertThat(policy.endedForGood(TaskPhase.Running)).isFalse();
    }
    assertThat(RestartPolicy.OnFailure.endedForGood(TaskPhase.Succeeded)).isTrue();
    assertThat(RestartPolicy.Always.endedForGood(TaskPhase.Succeeded)).isFalse();
  }
}
