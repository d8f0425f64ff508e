package dev.quartermaster.control.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.Condition;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * {@link GangStatuses}, as a table: the group's tasks and claims in, the gang's line out. Each row
 * names the case it is.
 */
class GangStatusesTest {
  private static final String WORKLOAD = "job";
  private static final String UID = "w-uid";
  private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
  private static final Instant T1 = T0.plusSeconds(30);
  private static final String SHORT =
      "gang job/workers needs 4 × (4 gpu) at once; at most 3 fit now; it holds nothing while it"
          + " waits";

  /** A member: its ordinal, phase, node, and whether it is ours and being deleted. */
  private record M(
      int ordinal, TaskPhase phase, Optional<String> node, String owner, boolean gone) {
    static M pending(int ordinal) {
      return new M(ordinal, TaskPhase.Pending, Optional.empty(), UID, false);
    }

    static M on(int ordinal, TaskPhase phase, String node) {
      return new M(ordinal, phase, Optional.of(node), UID, false);
    }

    static M finished(int ordinal, TaskPhase phase) {
      return new M(ordinal, phase, Optional.of("node-1"), UID, false);
    }

    M notOurs() {
      return new M(ordinal, phase, node, "other-uid", gone);
    }

    M deleting() {
      return new M(ordinal, phase, node, owner, true);
    }

    Task task() {
      var meta =
          ObjectMeta.named(TaskNames.task(WORKLOAD, "workers", ordinal))
              .withUid("t" + ordinal)
              .withOwner(new OwnerReference("Workload", WORKLOAD, owner));
      if (gone) {
        meta = meta.withDeletedAt(T0);
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
      return new Task(meta, TaskSpec.EMPTY.withNode(node), status);
    }
  }

  /** A claim of member {@code ordinal}: allocated, or with the allocator's word on it. */
  private static ResourceClaim claim(int ordinal, Optional<String> node, Optional<Condition> word) {
    var meta =
        ObjectMeta.named(TaskNames.task(WORKLOAD, "workers", ordinal) + "-gpu")
            .withOwner(new OwnerReference("Task", "task-" + ordinal, "t" + ordinal));
    var status =
        new ResourceClaimStatus(
            node.map(
                n -> new Allocation(n, List.of(new Allocation.AllocatedDevice("gpu", "gpu-0")))),
            List.of(),
            Map.of(),
            word.stream().toList());
    return new ResourceClaim(meta, ResourceClaimSpec.EMPTY, status);
  }

  private static ResourceClaim waiting(int ordinal, String reason, String message) {
    return claim(
        ordinal,
        Optional.empty(),
        Optional.of(
            new Condition(
                ClaimConditions.ALLOCATED,
                Condition.Status.False,
                reason,
                message,
                Optional.of(T0))));
  }

  private static ResourceClaim fresh(int ordinal) {
    return claim(ordinal, Optional.empty(), Optional.empty());
  }

  private static ResourceClaim allocated(int ordinal) {
    return claim(ordinal, Optional.of("node-1"), Optional.empty());
  }

  private static WorkerGroup gang(int replicas, Optional<Integer> min, RestartPolicy policy) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    return new WorkerGroup("workers", replicas, template, List.of(), policy)
        .withGang(new GangSpec(min, MemberFailurePolicy.RestartGang, GangTopology.ANYWHERE));
  }

  private static WorkerGroup gangOf4() {
    return gang(4, Optional.empty(), RestartPolicy.OnFailure);
  }

  private record Row(
      String why,
      WorkerGroup group,
      List<M> members,
      List<ResourceClaim> claims,
      GangState state,
      String reason,
      String message) {}

  private static List<M> pending(int n) {
    var out = new ArrayList<M>();
    for (int i = 0; i < n; i++) {
      out.add(M.pending(i));
    }
    return out;
  }

  private static List<ResourceClaim> claims(
      int n, java.util.function.IntFunction<ResourceClaim> f) {
    var out = new ArrayList<ResourceClaim>();
    for (int i = 0; i < n; i++) {
      out.add(f.apply(i));
    }
    return out;
  }

  private static final List<Row> ROWS =
      List.of(
          new Row(
              "no member yet",
              gangOf4(),
              List.of(),
              List.of(),
              GangState.Waiting,
              "WaitingForGang",
              "0 of 4 members exist so far"),
          new Row(
              "members still being created: the allocator writes nothing, the count says why",
              gangOf4(),
              pending(3),
              claims(3, GangStatusesTest::fresh),
              GangState.Waiting,
              "WaitingForGang",
              "3 of 4 members exist so far"),
          new Row(
              "a member being deleted or another's task does not count",
              gangOf4(),
              List.of(M.pending(0), M.pending(1), M.pending(2).deleting(), M.pending(3).notOurs()),
              List.of(),
              GangState.Waiting,
              "WaitingForGang",
              "2 of 4 members exist so far; 1 more is being replaced (the earlier task of the name"
                  + " has ended or is stopping, and lets its claims go first)"),
          new Row(
              "all exist, nothing decided yet",
              gangOf4(),
              pending(4),
              claims(4, GangStatusesTest::fresh),
              GangState.Waiting,
              "WaitingForGang",
              "all 4 members exist; the allocator has not decided yet"),
          new Row(
              "does not fit: the allocator's word on the members' claims",
              gangOf4(),
              pending(4),
              claims(4, i -> waiting(i, "WaitingForGang", SHORT)),
              GangState.Waiting,
              "WaitingForGang",
              SHORT),
          new Row(
              "refused: a claim's refusal is the gang's reason",
              gangOf4(),
              pending(4),
              List.of(
                  fresh(0), waiting(1, "NoSuchDeviceClass", "no class h100"), fresh(2), fresh(3)),
              GangState.Waiting,
              "NoSuchDeviceClass",
              "no class h100"),
          new Row(
              "minMember 2 of 4: two members are enough to be decided",
              gang(4, Optional.of(2), RestartPolicy.OnFailure),
              pending(2),
              claims(2, i -> waiting(i, "WaitingForGang", SHORT)),
              GangState.Waiting,
              "WaitingForGang",
              SHORT),
          new Row(
              "placed: its members are bound",
              gangOf4(),
              List.of(
                  M.on(0, TaskPhase.Running, "node-1"),
                  M.on(1, TaskPhase.Scheduled, "node-1"),
                  M.on(2, TaskPhase.Preparing, "node-2"),
                  M.on(3, TaskPhase.Scheduled, "node-2")),
              claims(4, GangStatusesTest::allocated),
              GangState.Placed,
              "",
              ""),
          new Row(
              "placed: the claims' cache shows it before the tasks' does",
              gangOf4(),
              pending(4),
              claims(4, GangStatusesTest::allocated),
              GangState.Placed,
              "",
              ""),
          new Row(
              "placed: the tasks' cache shows it before the claims' does (stale word on them)",
              gangOf4(),
              List.of(
                  M.on(0, TaskPhase.Scheduled, "node-1"), M.pending(1), M.pending(2), M.pending(3)),
              claims(4, i -> waiting(i, "WaitingForGang", SHORT)),
              GangState.Placed,
              "",
              ""),
          new Row(
              "placed, one member replaced (RestartMember): the others still hold their devices",
              gangOf4(),
              List.of(
                  M.finished(0, TaskPhase.Failed),
                  M.on(1, TaskPhase.Running, "node-1"),
                  M.on(2, TaskPhase.Running, "node-2"),
                  M.on(3, TaskPhase.Running, "node-2")),
              List.of(allocated(1), allocated(2), allocated(3)),
              GangState.Placed,
              "",
              ""),
          new Row(
              "restarting as a whole: the failed member and the stopped ones hold nothing",
              gangOf4(),
              List.of(
                  M.finished(0, TaskPhase.Failed),
                  M.on(1, TaskPhase.Running, "node-1").deleting(),
                  M.on(2, TaskPhase.Running, "node-2").deleting(),
                  M.on(3, TaskPhase.Running, "node-2").deleting()),
              List.of(allocated(1), allocated(2), allocated(3)),
              GangState.Waiting,
              "WaitingForGang",
              "0 of 4 members exist so far; 4 more are being replaced (the earlier task of the"
                  + " name has ended or is stopping, and lets its claims go first)"),
          new Row(
              "done: every slot finished for good",
              gangOf4(),
              List.of(
                  M.finished(0, TaskPhase.Succeeded),
                  M.finished(1, TaskPhase.Succeeded),
                  M.finished(2, TaskPhase.Succeeded),
                  M.finished(3, TaskPhase.Succeeded)),
              List.of(),
              GangState.Finished,
              "",
              ""),
          new Row(
              "a failure to be restarted is not done",
              gangOf4(),
              List.of(
                  M.finished(0, TaskPhase.Succeeded),
                  M.finished(1, TaskPhase.Succeeded),
                  M.finished(2, TaskPhase.Succeeded),
                  M.finished(3, TaskPhase.Failed)),
              List.of(),
              GangState.Waiting,
              "WaitingForGang",
              "0 of 4 members exist so far; 1 more is being replaced (the earlier task of the name"
                  + " has ended or is stopping, and lets its claims go first)"));

  @Test
  void eachCaseGivesItsLine() {
    for (var row : ROWS) {
      var tasks = row.members().stream().map(M::task).toList();
      var line = lineOf(row.group(), tasks, row.claims(), Optional.empty(), T0).orElseThrow();
      assertThat(line)
          .as(row.why())
          .isEqualTo(new GangStatus(row.state(), row.reason(), row.message(), Optional.of(T0)));
    }
  }

  @Test
  void aGroupThatIsNoGangHasNoLine() {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var group = new WorkerGroup("workers", 4, template, List.of(), RestartPolicy.OnFailure);
    assertThat(lineOf(group, List.of(), List.of(), Optional.empty(), T0)).isEmpty();
  }

  @Test
  void aWaitIsTimedFromItsStartWhateverItsReasonBecomes() {
    var group = gangOf4();
    var first = lineOf(group, tasks(pending(1)), List.of(), Optional.empty(), T0);
    var later =
        lineOf(
            group,
            tasks(pending(4)),
            claims(4, i -> waiting(i, "WaitingForGang", SHORT)),
            first,
            T1);
    assertThat(later.orElseThrow().message()).isEqualTo(SHORT);
    assertThat(later.orElseThrow().since()).contains(T0);

    var placed =
        lineOf(group, tasks(pending(4)), claims(4, GangStatusesTest::allocated), later, T1);
    assertThat(placed.orElseThrow().state()).isEqualTo(GangState.Placed);
    assertThat(placed.orElseThrow().since()).as("a new state starts now").contains(T1);
  }

  /**
   * Issue 44: a placed gang whose member was drained says so ({@code Partial}, who is missing, and
   * what happens when), rather than {@code Placed}; a gang seen half bound straight from waiting is
   * a cache that shows part of the one write that placed it whole (G1), and reads as placed.
   */
  @Test
  void aPlacedGangThatLostAMemberIsPartialButNeverStraightFromWaiting() {
    var group = gang(2, Optional.empty(), RestartPolicy.OnFailure);
    var spec = new WorkloadSpec(List.of(group), Optional.empty());
    var g = WorkloadGangs.ofGroup(spec, "workers").orElseThrow();
    var half =
        Map.of("workers", tasks(List.of(M.on(0, TaskPhase.Running, "node-1"), M.pending(1))));
    var placed = Optional.of(new GangStatus(GangState.Placed, "", "", Optional.of(T0)));
    var line =
        GangStatuses.of(
            new GangView(g, spec, UID, half, List.of(), x -> 2),
            GangAdmission.Admitted,
            GangRecovery.DEFAULT,
            placed,
            T1);
    assertThat(line)
        .isEqualTo(
            new GangStatus(
                GangState.Partial,
                GangStatus.MEMBERS_MISSING,
                "1 of 2 members placed (job-workers-0); not placed: job-workers-1 (Pending);"
                    + " unless they are placed beside the others within 30s, the gang is stopped"
                    + " and placed again as a whole (onMemberFailure: RestartGang)",
                Optional.of(T1)));
    var later =
        GangStatuses.of(
            new GangView(g, spec, UID, half, List.of(), x -> 2),
            GangAdmission.Admitted,
            GangRecovery.DEFAULT,
            Optional.of(line),
            T1.plusSeconds(9));
    assertThat(later.since()).as("timed from when it became partial").contains(T1);

    var waiting =
        Optional.of(new GangStatus(GangState.Waiting, "WaitingForGang", SHORT, Optional.of(T0)));
    assertThat(
            GangStatuses.of(
                    new GangView(g, spec, UID, half, List.of(), x -> 2),
                    GangAdmission.Admitted,
                    GangRecovery.DEFAULT,
                    waiting,
                    T1)
                .state())
        .isEqualTo(GangState.Placed);
  }

  /** Every replica admitted. */
  private static final ToIntFunction<String> ALL = group -> Integer.MAX_VALUE;

  /** The line of a gang of an admitted workload. */
  private static GangStatus admitted(GangView view, Optional<GangStatus> previous, Instant now) {
    return GangStatuses.of(view, GangAdmission.Admitted, GangRecovery.DEFAULT, previous, now);
  }

  private static List<Task> tasks(List<M> members) {
    return members.stream().map(M::task).toList();
  }

  /** The line of {@code group}'s gang in a workload of that group alone; none if it is no gang. */
  private static Optional<GangStatus> lineOf(
      WorkerGroup group,
      List<Task> tasks,
      List<ResourceClaim> claims,
      Optional<GangStatus> previous,
      Instant now) {
    var spec = new WorkloadSpec(List.of(group), Optional.empty());
    return WorkloadGangs.ofGroup(spec, group.name())
        .map(
            g ->
                admitted(
                    new GangView(g, spec, UID, Map.of(group.name(), tasks), claims, ALL),
                    previous,
                    now));
  }

  /**
   * A launcher of 1 and 3 workers of which 2 are its share: a workload gang with every worker made
   * and no launcher yet has 2 of its 3 members, not 3 (a count over the groups together, with the
   * elastic third worker, would say all exist and wait for the allocator for nothing); once the
   * launcher exists it is the allocator's word, and once any member of either group is bound, the
   * gang is placed.
   */
  @Test
  void aWorkloadGangCountsEachGroupUpToItsShare() {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var spec =
        new WorkloadSpec(
            List.of(
                new WorkerGroup("launcher", 1, template, List.of(), RestartPolicy.OnFailure),
                new WorkerGroup("workers", 3, template, List.of(), RestartPolicy.OnFailure)
                    .withGang(new GangSpec(Optional.of(2), Optional.empty(), Optional.empty()))),
            Optional.empty(),
            Optional.of(GangSpec.ALL));
    var gang = WorkloadGangs.named(spec, Gang.WHOLE_WORKLOAD).orElseThrow();
    var workers = tasks(pending(3));
    var launcher = List.of(M.pending(10).task());

    var noLauncher =
        admitted(
            new GangView(gang, spec, UID, Map.of("workers", workers), List.of(), ALL),
            Optional.empty(),
            T0);
    assertThat(noLauncher.message()).isEqualTo("2 of 3 members exist so far");
    long naive = workers.size();
    assertThat(naive).as("the naive count says all exist").isGreaterThanOrEqualTo(gang.minMember());

    var all = Map.of("workers", workers, "launcher", launcher);
    var undecided =
        admitted(new GangView(gang, spec, UID, all, List.of(), ALL), Optional.empty(), T0);
    assertThat(undecided.message())
        .isEqualTo("all 3 members exist; the allocator has not decided yet");

    var bound =
        Map.of("workers", workers, "launcher", List.of(M.on(10, TaskPhase.Scheduled, "n").task()));
    assertThat(
            admitted(new GangView(gang, spec, UID, bound, List.of(), ALL), Optional.empty(), T0)
                .state())
        .isEqualTo(GangState.Placed);
  }

  /**
   * A gang of a workload its queue has not admitted, or that is being evicted, waits for its queue,
   * not for devices (it said {@code WaitingForGang: 0 of 4 members exist so far}); once a member is
   * bound it is placed whatever the ledger says.
   */
  @Test
  void aGangNotAdmittedOrEvictedSaysSoRatherThanWaitingForDevices() {
    var group =
        new WorkerGroup("workers", 4, TaskTemplate.EMPTY, List.of(), RestartPolicy.OnFailure)
            .withGang(GangSpec.ALL);
    var spec = new WorkloadSpec(List.of(group), Optional.empty());
    var gang = WorkloadGangs.ofGroup(spec, "workers").orElseThrow();

    var queued =
        GangStatuses.of(
            new GangView(gang, spec, UID, Map.of(), List.of(), ALL),
            GangAdmission.Waiting,
            GangRecovery.DEFAULT,
            Optional.empty(),
            T0);
    assertThat(queued.reason()).isEqualTo(GangStatus.WAITING_FOR_ADMISSION);
    assertThat(queued.waitsForPlacement()).isFalse();

    var stopping =
        GangStatuses.of(
            new GangView(
                gang,
                spec,
                UID,
                Map.of("workers", tasks(List.of(M.on(0, TaskPhase.Running, "n").deleting()))),
                List.of(),
                ALL),
            GangAdmission.Evicted,
            GangRecovery.DEFAULT,
            Optional.empty(),
            T0);
    assertThat(stopping.reason()).isEqualTo(GangStatus.EVICTED);

    var stillBound =
        GangStatuses.of(
            new GangView(
                gang,
                spec,
                UID,
                Map.of("workers", tasks(List.of(M.on(0, TaskPhase.Running, "n")))),
                List.of(),
                ALL),
            GangAdmission.Evicted,
            GangRecovery.DEFAULT,
            Optional.empty(),
            T0);
    assertThat(stillBound.state()).isEqualTo(GangState.Placed);
  }
}
