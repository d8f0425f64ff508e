package dev.quartermaster.control.workload;

import static dev.quartermaster.api.workload.GroupTasks.UID;
import static dev.quartermaster.api.workload.GroupTasks.WORKLOAD;
import static dev.quartermaster.api.workload.GroupTasks.group;
import static dev.quartermaster.api.workload.GroupTasks.ours;
import static dev.quartermaster.api.workload.GroupTasks.task;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupPlan#decide}, case by case: which ordinals are created, which tasks deleted or
 * restarted, and which taken.
 */
class GroupPlanTest {
  private static List<String> names(List<Task> tasks) {
    return tasks.stream().map(t -> t.metadata().name()).toList();
  }

  @Test
  void anEmptyGroupCreatesEveryOrdinalBelowItsReplicas() {
    var plan = GroupPlan.decide(WORKLOAD, UID, group(3, RestartPolicy.OnFailure), List.of());
    assertThat(plan.create()).containsExactly(0, 1, 2);
    assertThat(plan.acts()).isTrue();
  }

  @Test
  void aFullGroupDoesNothing() {
    var plan =
        GroupPlan.decide(
            WORKLOAD,
            UID,
            group(2, RestartPolicy.OnFailure),
            List.of(ours(0, TaskPhase.Running), ours(1, TaskPhase.Pending)));
    assertThat(plan.acts()).isFalse();
  }

  @Test
  void aGapIsFilledAndNothingAboveTheReplicasIsCreated() {
    var plan =
        GroupPlan.decide(
            WORKLOAD,
            UID,
            group(3, RestartPolicy.OnFailure),
            List.of(ours(0, TaskPhase.Running), ours(2, TaskPhase.Running)));
    assertThat(plan.create()).containsExactly(1);
  }

  @Test
  void aScaleDownDeletesFromTheHighestOrdinal() {
    var plan =
        GroupPlan.decide(
            WORKLOAD,
            UID,
            group(1, RestartPolicy.OnFailure),
            List.of(
                ours(0, TaskPhase.Running),
                ours(1, TaskPhase.Running),
                ours(2, TaskPhase.Running)));
    assertThat(names(plan.delete())).containsExactly("train-w-2", "train-w-1");
    assertThat(plan.create()).isEmpty();
  }

  /** A name still held by a task being deleted is waited for, never reused early (I4). */
  @Test
  void aNameHeldByADeletingTaskIsNotReused() {
    var plan =
        GroupPlan.decide(
            WORKLOAD,
            UID,
            group(2, RestartPolicy.OnFailure),
            List.of(ours(0, TaskPhase.Running), task(1, UID, TaskPhase.Running, true)));
    assertThat(plan.create()).isEmpty();
    assertThat(plan.delete()).isEmpty();
  }

  @Test
  void eachRestartPolicyReplacesWhatItSays() {
    var tasks =
        List.of(
            ours(0, TaskPhase.Failed), ours(1, TaskPhase.Succeeded), ours(2, TaskPhase.Running));
    assertThat(
            names(
                GroupPlan.decide(WORKLOAD, UID, group(3, RestartPolicy.OnFailure), tasks)
                    .restart()))
        .containsExactly("train-w-0");
    assertThat(
            names(GroupPlan.decide(WORKLOAD, UID, group(3, RestartPolicy.Always), tasks).restart()))
        .containsExactly("train-w-0", "train-w-1");
    assertThat(GroupPlan.decide(WORKLOAD, UID, group(3, RestartPolicy.Never), tasks).restart())
        .isEmpty();
  }

  /** A finished task keeps its slot: the ordinal is not created again beside it. */
  @Test
  void aFinishedTaskThatIsNotRestartedKeepsItsSlot() {
    var plan =
        GroupPlan.decide(
            WORKLOAD, UID, group(1, RestartPolicy.Never), List.of(ours(0, TaskPhase.Succeeded)));
    assertThat(plan.acts()).isFalse();
  }

  @Test
  void anEarlierIncarnationsTaskIsDeletedAndAnotherOwnersIsTaken() {
    var earlier = task(0, "old-uid", TaskPhase.Running, false);
    var foreign =
        new Task(
            ObjectMeta.named(TaskNames.task(WORKLOAD, "w", 1)).withUid("f"),
            null,
            TaskStatus.EMPTY);
    var plan =
        GroupPlan.decide(
            WORKLOAD, UID, group(2, RestartPolicy.OnFailure), List.of(earlier, foreign));
    assertThat(names(plan.delete())).containsExactly("train-w-0");
    assertThat(names(plan.taken())).containsExactly("train-w-1");
    assertThat(plan.create()).as("neither name is free yet").isEmpty();
  }

  @Test
  void aTaskOutsideTheNamePatternIsIgnored() {
    var stray =
        new Task(
            ObjectMeta.named("train-w-01").withOwner(new OwnerReference("Workload", WORKLOAD, UID)),
            null,
            TaskStatus.EMPTY);
    var plan = GroupPlan.decide(WORKLOAD, UID, group(1, RestartPolicy.OnFailure), List.of(stray));
    assertThat(plan.create()).containsExactly(0);
    assertThat(plan.delete()).isEmpty();
  }

  private static WorkerGroup gang(int replicas, MemberFailurePolicy onFailure) {
    return group(replicas, RestartPolicy.OnFailure)
        .withGang(new GangSpec(Optional.empty(), onFailure, GangTopology.ANYWHERE));
  }

  @Test
  void aRestartGangGangStopsEveryOtherLiveMemberAndCreatesNoneWhileAMemberIsToBeRestarted() {
    var tasks =
        List.of(
            ours(0, TaskPhase.Running),
            ours(1, TaskPhase.Failed),
            ours(2, TaskPhase.Scheduled),
            task(3, UID, TaskPhase.Running, true));
    var plan = GroupPlan.decide(WORKLOAD, UID, gang(5, MemberFailurePolicy.RestartGang), tasks);
    assertThat(names(plan.restart())).containsExactly("train-w-1");
    assertThat(names(plan.gangStop()))
        .as("the live, not yet deleting members")
        .containsExactly("train-w-0", "train-w-2");
    assertThat(plan.create()).as("ordinal 4 waits for the whole gang's restart").isEmpty();
    assertThat(plan.acts()).isTrue();
  }

  @Test
  void aRestartMemberGangOrAGangWithNothingFailedStopsNoOne() {
    var failed = List.of(ours(0, TaskPhase.Running), ours(1, TaskPhase.Failed));
    var member =
        GroupPlan.decide(WORKLOAD, UID, gang(3, MemberFailurePolicy.RestartMember), failed);
    assertThat(member.gangStop()).isEmpty();
    assertThat(member.create()).containsExactly(2);
    var healthy = List.of(ours(0, TaskPhase.Running), ours(1, TaskPhase.Running));
    var whole = GroupPlan.decide(WORKLOAD, UID, gang(3, MemberFailurePolicy.RestartGang), healthy);
    assertThat(whole.gangStop()).isEmpty();
    assertThat(whole.create()).containsExactly(2);
  }

  /**
   * Issue 44: a member deleted from outside while it ran (a drain, an operator) has failed, for a
   * gang that restarts as one: the others are stopped, not left holding their devices while its
   * replacement waits for room beside them.
   */
  @Test
  void aRestartGangGangWhoseMemberIsStoppedFromOutsideStopsTheOthers() {
    var tasks = List.of(ours(0, TaskPhase.Running), task(1, UID, TaskPhase.Running, true));
    var plan = GroupPlan.decide(WORKLOAD, UID, gang(2, MemberFailurePolicy.RestartGang), tasks);
    assertThat(names(plan.lost())).containsExactly("train-w-1");
    assertThat(names(plan.gangStop())).containsExactly("train-w-0");
    assertThat(plan.create()).isEmpty();

    var before =
        GroupPlan.decideAll(
                WORKLOAD,
                UID,
                new WorkloadSpec(
                    List.of(gang(2, MemberFailurePolicy.RestartGang)), Optional.empty()),
                Map.of("w", tasks),
                false)
            .get("w");
    assertThat(before.gangStop()).as("the recovery before issue 44").isEmpty();
  }

  /**
   * Not a loss: our own scale-down (marked), a member that had finished, one above the replicas, or
   * any member of a gang that restarts members one by one.
   */
  @Test
  void aStopThatIsNoLossStopsNoOne() {
    var scaledDown =
        new Task(
            task(1, UID, TaskPhase.Running, true)
                .metadata()
                .withLabels(Map.of(dev.quartermaster.api.workload.SpecDecision.SCALE_DOWN_AT, "3")),
            null,
            task(1, UID, TaskPhase.Running, true).status());
    var gang = gang(2, MemberFailurePolicy.RestartGang);
    for (var other :
        List.of(
            scaledDown,
            task(1, UID, TaskPhase.Failed, true),
            task(1, UID, TaskPhase.Succeeded, true))) {
      var plan = GroupPlan.decide(WORKLOAD, UID, gang, List.of(ours(0, TaskPhase.Running), other));
      assertThat(plan.lost()).as(other.toString()).isEmpty();
      assertThat(plan.gangStop()).as(other.toString()).isEmpty();
    }
    var above =
        GroupPlan.decide(
            WORKLOAD,
            UID,
            gang(1, MemberFailurePolicy.RestartGang),
            List.of(ours(0, TaskPhase.Running), task(1, UID, TaskPhase.Running, true)));
    assertThat(above.gangStop()).isEmpty();
    var member =
        GroupPlan.decide(
            WORKLOAD,
            UID,
            gang(2, MemberFailurePolicy.RestartMember),
            List.of(ours(0, TaskPhase.Running), task(1, UID, TaskPhase.Running, true)));
    assertThat(member.gangStop()).isEmpty();
  }

  @Test
  void aRestartGangGangWhoseFailedMemberIsNotRestartedStopsNoOne() {
    var tasks = List.of(ours(0, TaskPhase.Running), ours(1, TaskPhase.Failed));
    var group =
        group(2, RestartPolicy.Never)
            .withGang(
                new GangSpec(
                    Optional.empty(), MemberFailurePolicy.RestartGang, GangTopology.ANYWHERE));
    var plan = GroupPlan.decide(WORKLOAD, UID, group, tasks);
    assertThat(plan.gangStop())
        .as("restartPolicy Never: the failed member keeps its slot")
        .isEmpty();
  }

  /** A task of {@code group} in workload {@link #WORKLOAD}, ours. */
  private static Task in(String group, int ordinal, TaskPhase phase) {
    var t = ours(ordinal, phase);
    return new Task(
        t.metadata()
            .withName(TaskNames.task(WORKLOAD, group, ordinal))
            .withUid(group + "-" + ordinal),
        null,
        t.status());
  }

  /** A launcher of 1 and 3 workers, one workload gang with {@code onFailure}. */
  private static WorkloadSpec launcherAndWorkers(MemberFailurePolicy onFailure) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    return new WorkloadSpec(
        List.of(
            new WorkerGroup("launcher", 1, template, List.of(), RestartPolicy.OnFailure),
            new WorkerGroup("workers", 3, template, List.of(), RestartPolicy.OnFailure)),
        Optional.empty(),
        Optional.of(new GangSpec(Optional.empty(), onFailure, GangTopology.ANYWHERE)));
  }

  @Test
  void aWorkloadGangThatRestartsAsOneStopsEveryGroupWhenAMemberOfAnyFails() {
    var spec = launcherAndWorkers(MemberFailurePolicy.RestartGang);
    var launcherFailed =
        Map.of(
            "launcher",
            List.of(in("launcher", 0, TaskPhase.Failed)),
            "workers",
            List.of(
                in("workers", 0, TaskPhase.Running),
                in("workers", 1, TaskPhase.Running),
                in("workers", 2, TaskPhase.Scheduled)));
    var plans = GroupPlan.decideAll(WORKLOAD, UID, spec, launcherFailed);
    assertThat(names(plans.get("launcher").restart())).containsExactly("train-launcher-0");
    assertThat(names(plans.get("workers").gangStop()))
        .as("a failed launcher stops every worker")
        .containsExactly("train-workers-0", "train-workers-1", "train-workers-2");
    assertThat(plans.get("workers").create()).isEmpty();

    var workerFailed =
        Map.of(
            "launcher",
            List.of(in("launcher", 0, TaskPhase.Running)),
            "workers",
            List.of(in("workers", 0, TaskPhase.Running), in("workers", 1, TaskPhase.Failed)));
    var again = GroupPlan.decideAll(WORKLOAD, UID, spec, workerFailed);
    assertThat(names(again.get("launcher").gangStop()))
        .as("a failed worker stops the launcher")
        .containsExactly("train-launcher-0");
    assertThat(names(again.get("workers").gangStop())).containsExactly("train-workers-0");
    assertThat(again.get("workers").create())
        .as("worker 2 waits for the whole gang's restart")
        .isEmpty();

    // Deciding each group on its own, as before workload gangs, leaves the workers running.
    var alone =
        GroupPlan.decide(WORKLOAD, UID, spec.groups().get(1), launcherFailed.get("workers"));
    assertThat(alone.gangStop()).isEmpty();
  }

  @Test
  void aWorkloadGangOfRestartMemberOrAGroupNotInViewStopsNothingMore() {
    var tasks =
        Map.of(
            "launcher",
            List.of(in("launcher", 0, TaskPhase.Failed)),
            "workers",
            List.of(in("workers", 0, TaskPhase.Running)));
    var member =
        GroupPlan.decideAll(
            WORKLOAD, UID, launcherAndWorkers(MemberFailurePolicy.RestartMember), tasks);
    assertThat(member.get("workers").gangStop()).isEmpty();
    assertThat(member.get("workers").create()).containsExactly(1, 2);

    // The workers' view may not be acted on yet (their gate waits): they get no plan this pass.
    var gated =
        GroupPlan.decideAll(
            WORKLOAD,
            UID,
            launcherAndWorkers(MemberFailurePolicy.RestartGang),
            Map.of("launcher", tasks.get("launcher")));
    assertThat(gated).containsOnlyKeys("launcher");
  }
}
