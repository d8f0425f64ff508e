package dev.quartermaster.control.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link PartlyPlaced}, as a table: a gang of {@code workers} (3 replicas, minMember 2 unless the
 * row says otherwise), its members and claims in, whether it is partly placed out. Each row names
 * its case.
 */
class PartlyPlacedTest {
  private static final String UID = "w-uid";

  private static Task member(int ordinal, TaskPhase phase, Optional<String> node, boolean gone) {
    var meta =
        ObjectMeta.named(TaskNames.task("job", "workers", ordinal))
            .withUid("t" + ordinal)
            .withOwner(new OwnerReference("Workload", "job", UID));
    if (gone) {
      meta = meta.withDeletedAt(Instant.parse("2026-03-01T12:00:00Z"));
    }
    var status =
        new TaskStatus(
            phase,
            phase == TaskPhase.Pending ? "WaitingForAllocation" : "",
            "",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of());
    return new Task(meta, TaskSpec.EMPTY.withNode(node), status);
  }

  private static Task running(int ordinal) {
    return member(ordinal, TaskPhase.Running, Optional.of("node-1"), false);
  }

  private static Task pending(int ordinal) {
    return member(ordinal, TaskPhase.Pending, Optional.empty(), false);
  }

  /** Member {@code ordinal}'s claim, allocated. */
  private static ResourceClaim allocated(int ordinal) {
    return new ResourceClaim(
        ObjectMeta.named(TaskNames.task("job", "workers", ordinal) + "-gpu")
            .withOwner(new OwnerReference("Task", "x", "t" + ordinal)),
        ResourceClaimSpec.EMPTY,
        new ResourceClaimStatus(
            Optional.of(new Allocation("node-1", List.of())), List.of(), Map.of(), List.of()));
  }

  /** Member {@code ordinal}'s claim made again under it (its first was deleted): pending. */
  private static ResourceClaim remade(int ordinal) {
    return new ResourceClaim(
        ObjectMeta.named(TaskNames.task("job", "workers", ordinal) + "-gpu")
            .withOwner(new OwnerReference("Task", "x", "t" + ordinal)),
        ResourceClaimSpec.EMPTY,
        ResourceClaimStatus.EMPTY);
  }

  private record Row(
      String why,
      int minMember,
      int admitted,
      RestartPolicy policy,
      List<Task> tasks,
      List<ResourceClaim> claims,
      Optional<String> partly) {}

  private static final List<Row> ROWS =
      List.of(
          new Row(
              "whole: minMember placed",
              2,
              3,
              RestartPolicy.OnFailure,
              List.of(running(0), running(1), pending(2)),
              List.of(),
              Optional.empty()),
          new Row(
              "nothing placed: waiting, not partly placed",
              2,
              3,
              RestartPolicy.OnFailure,
              List.of(pending(0), pending(1)),
              List.of(),
              Optional.empty()),
          new Row(
              "drained member's replacement waits beside the one placed",
              2,
              3,
              RestartPolicy.OnFailure,
              List.of(running(0), pending(1)),
              List.of(),
              Optional.of(
                  "1 of 2 members placed (job-workers-0); not placed: job-workers-1 (Pending,"
                      + " WaitingForAllocation)")),
          new Row(
              "a member being stopped or replaced has no live task",
              2,
              3,
              RestartPolicy.OnFailure,
              List.of(
                  running(0),
                  member(1, TaskPhase.Running, Optional.of("node-2"), true),
                  member(2, TaskPhase.Failed, Optional.of("node-2"), false)),
              List.of(),
              Optional.of(
                  "1 of 2 members placed (job-workers-0); not placed: 1 member(s) of group"
                      + " workers being replaced (no live task)")),
          new Row(
              "a member done for good counts as there",
              2,
              3,
              RestartPolicy.OnFailure,
              List.of(running(0), member(1, TaskPhase.Succeeded, Optional.of("node-1"), false)),
              List.of(),
              Optional.empty()),
          new Row(
              "restartPolicy Always: a succeeded member is to be replaced",
              2,
              3,
              RestartPolicy.Always,
              List.of(running(0), member(1, TaskPhase.Succeeded, Optional.of("node-1"), false)),
              List.of(),
              Optional.of(
                  "1 of 2 members placed (job-workers-0); not placed: 1 member(s) of group"
                      + " workers being replaced (no live task)")),
          new Row(
              "the claims' cache shows a member placed before the tasks' does",
              2,
              3,
              RestartPolicy.OnFailure,
              List.of(running(0), pending(1)),
              List.of(allocated(1)),
              Optional.empty()),
          new Row(
              "a pinned member whose claim was made again and no node holds is placed in name only",
              2,
              3,
              RestartPolicy.OnFailure,
              List.of(running(0), member(1, TaskPhase.Scheduled, Optional.of("node-1"), false)),
              List.of(allocated(0), remade(1)),
              Optional.of(
                  "1 of 2 members placed (job-workers-0); not placed: job-workers-1 (pinned to"
                      + " node-1, a claim of it made again that no node holds)")),
          new Row(
              "a scale-up its queue has not admitted is not needed",
              3,
              2,
              RestartPolicy.OnFailure,
              List.of(running(0), running(1)),
              List.of(),
              Optional.empty()),
          new Row(
              "an admitted scale-up of a gang of all its replicas needs the new member",
              3,
              3,
              RestartPolicy.OnFailure,
              List.of(running(0), running(1), pending(2)),
              List.of(),
              Optional.of(
                  "2 of 3 members placed (job-workers-0, job-workers-1); not placed:"
                      + " job-workers-2 (Pending, WaitingForAllocation)")));

  @Test
  void eachCaseIsJudged() {
    for (var row : ROWS) {
      var group =
          new WorkerGroup(
                  "workers",
                  3,
                  new TaskTemplate(
                      List.of("x"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
                  List.of(),
                  row.policy())
              .withGang(
                  new GangSpec(
                      Optional.of(row.minMember()),
                      MemberFailurePolicy.RestartMember,
                      GangTopology.ANYWHERE));
      var spec = new WorkloadSpec(List.of(group), Optional.empty());
      var gang = WorkloadGangs.ofGroup(spec, "workers").orElseThrow();
      var partly =
          PartlyPlaced.of(
              new GangView(
                  gang,
                  spec,
                  UID,
                  Map.of("workers", row.tasks()),
                  row.claims(),
                  g -> row.admitted(),
                  true));
      assertThat(partly.map(PartlyPlaced::describe)).as(row.why()).isEqualTo(row.partly());
    }
  }
}
