package dev.quartermaster.api.workload;

import static dev.quartermaster.api.workload.GroupTasks.UID;
import static dev.quartermaster.api.workload.GroupTasks.group;
import static dev.quartermaster.api.workload.GroupTasks.ours;
import static dev.quartermaster.api.workload.GroupTasks.task;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JobEnd}: when a workload's job is over, from its tasks and restart policies. */
class JobEndTest {
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
    assertThat(
            JobEnd.reached(
                never,
                UID,
                List.of(ours(0, TaskPhase.Succeeded), task(1, UID, TaskPhase.Succeeded, true))))
        .as("a finished task being deleted (an evicted job's) is no result: the job runs again")
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

  /**
   * The counts' answer is the tasks' answer, for every list of up to two tasks (each phase, being
   * deleted or not, ours or another's) and every group of 0 to 3 replicas under each policy: what
   * admission reads from its cache's counts is what the workload controller reads from the tasks.
   */
  @Test
  void theCountsAnswerAsTheTasksDo() {
    var variants = new java.util.ArrayList<Task>();
    for (var phase : TaskPhase.values()) {
      for (var owner : List.of(UID, "other")) {
        variants.add(task(0, owner, phase, false));
        variants.add(task(1, owner, phase, true));
      }
    }
    var lists = new java.util.ArrayList<List<Task>>();
    lists.add(List.of());
    for (var a : variants) {
      lists.add(List.of(a));
      for (var b : variants) {
        lists.add(List.of(a, b));
      }
    }
    int judged = 0;
    for (var policy : RestartPolicy.values()) {
      for (int replicas = 0; replicas <= 3; replicas++) {
        var g = group(replicas, policy);
        for (var tasks : lists) {
          assertThat(JobEnd.reached(g, GroupTaskCounts.of(tasks, UID)))
              .as("%s, %d replicas: %s", policy, replicas, tasks)
              .isEqualTo(JobEnd.reached(g, UID, tasks));
          judged++;
        }
      }
    }
    assertThat(judged).isGreaterThan(5_000);
  }
}
