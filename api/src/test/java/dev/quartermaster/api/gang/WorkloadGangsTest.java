package dev.quartermaster.api.gang;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkloadGangs}: the gangs a spec has, table by table, and where their status lines are.
 */
class WorkloadGangsTest {
  private static final GangTopology RACK =
      new GangTopology(Optional.of(TopologyKeys.RACK), Optional.empty());

  private static WorkerGroup group(String name, int replicas) {
    return new WorkerGroup(name, replicas, TaskTemplate.EMPTY, List.of(), null);
  }

  private static GangSpec share(int minMember) {
    return new GangSpec(Optional.of(minMember), Optional.empty(), Optional.empty());
  }

  private record Case(String name, WorkloadSpec spec, List<Gang> expected) {}

  private static final List<Case> CASES =
      List.of(
          new Case(
              "no gang",
              new WorkloadSpec(List.of(group("a", 2), group("b", 3)), Optional.empty()),
              List.of()),
          new Case(
              "group gangs: one per group that has one, named after it, defaults filled in",
              new WorkloadSpec(
                  List.of(
                      group("head", 1),
                      group("workers", 3)
                          .withGang(
                              new GangSpec(Optional.of(2), MemberFailurePolicy.RestartGang, RACK)),
                      group("eval", 4).withGang(GangSpec.ALL)),
                  Optional.empty()),
              List.of(
                  new Gang(
                      "workers",
                      List.of(new Gang.Share("workers", 2)),
                      MemberFailurePolicy.RestartGang,
                      RACK),
                  new Gang(
                      "eval",
                      List.of(new Gang.Share("eval", 4)),
                      MemberFailurePolicy.RestartMember,
                      GangTopology.ANYWHERE))),
          new Case(
              "a workload gang: every group, each its minMember or all its replicas",
              new WorkloadSpec(
                  List.of(group("launcher", 1), group("workers", 8).withGang(share(6))),
                  Optional.empty(),
                  Optional.of(
                      new GangSpec(Optional.empty(), MemberFailurePolicy.RestartGang, RACK))),
              List.of(
                  new Gang(
                      Gang.WHOLE_WORKLOAD,
                      List.of(new Gang.Share("launcher", 1), new Gang.Share("workers", 6)),
                      MemberFailurePolicy.RestartGang,
                      RACK))),
          new Case(
              "a workload gang with nothing written: every replica, RestartMember, anywhere",
              new WorkloadSpec(
                  List.of(group("ps", 2), group("workers", 0)),
                  Optional.empty(),
                  Optional.of(GangSpec.ALL)),
              List.of(
                  new Gang(
                      Gang.WHOLE_WORKLOAD,
                      List.of(new Gang.Share("ps", 2), new Gang.Share("workers", 0)),
                      MemberFailurePolicy.RestartMember,
                      GangTopology.ANYWHERE))));

  @Test
  void eachSpecHasTheGangsItSays() {
    for (var c : CASES) {
      assertThat(WorkloadGangs.of(c.spec())).as(c.name()).isEqualTo(c.expected());
    }
  }

  @Test
  void aGroupFindsItsGangAndAGangIsFoundByName() {
    var whole = CASES.get(2).spec();
    assertThat(WorkloadGangs.ofGroup(whole, "launcher").map(Gang::name))
        .contains(Gang.WHOLE_WORKLOAD);
    assertThat(WorkloadGangs.ofGroup(whole, "workers").map(Gang::minMember)).contains(7);
    assertThat(WorkloadGangs.ofGroup(whole, "nope")).isEmpty();
    assertThat(WorkloadGangs.named(whole, Gang.WHOLE_WORKLOAD).map(g -> g.shareOf("workers")))
        .contains(6);
    assertThat(WorkloadGangs.named(whole, "workers")).as("no group gang beside it").isEmpty();

    var groups = CASES.get(1).spec();
    assertThat(WorkloadGangs.ofGroup(groups, "head")).isEmpty();
    assertThat(WorkloadGangs.ofGroup(groups, "eval").map(Gang::wholeWorkload)).contains(false);
    assertThat(WorkloadGangs.named(groups, Gang.WHOLE_WORKLOAD)).isEmpty();
  }

  @Test
  void aGroupGangsLineIsItsGroupsAndTheWorkloadGangsIsTheWorkloads() {
    var waiting = new GangStatus(GangState.Waiting, GangStatus.WAITING_FOR_GANG, "1 of 2");
    var placed = new GangStatus(GangState.Placed, "", "");
    var status =
        new WorkloadStatus(
            1,
            List.of(
                new GroupStatus("head", 1, 1, 1, 0, 0),
                new GroupStatus("workers", 3, 3, 0, 0, 0).withGang(Optional.of(waiting))),
            List.of(),
            Optional.of(placed));
    assertThat(WorkloadGangs.statusOf(status, "workers")).contains(waiting);
    assertThat(WorkloadGangs.statusOf(status, Gang.WHOLE_WORKLOAD)).contains(placed);
    assertThat(WorkloadGangs.statusOf(status, "head")).isEmpty();
    assertThat(WorkloadGangs.statuses(status).keySet())
        .containsExactly("workers", Gang.WHOLE_WORKLOAD);
  }

  /**
   * Reading each group's own {@code gang}, as every consumer did before workload gangs, misses a
   * group that gives no share of its own and sees a group's share as a gang of its own: the
   * launcher would be placed alone, the workers held back for 6 rather than 7.
   */
  @Test
  void readingGroupsOneByOneMissesTheWorkloadsGang() {
    var whole = CASES.get(2).spec();
    var naive =
        whole.groups().stream()
            .filter(g -> g.gang().isPresent())
            .map(g -> g.name() + ":" + g.gang().get().minMemberOf(g.replicas()))
            .toList();
    assertThat(naive).containsExactly("workers:6");
    var real = WorkloadGangs.of(whole).stream().map(g -> g.name() + ":" + g.minMember()).toList();
    assertThat(real).containsExactly("*:7");
  }
}
