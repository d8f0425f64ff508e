package dev.quartermaster.cli.describe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.gang.TopologyKeys;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code qm describe workload}'s gangs: a group's, and the workload's own over every group. */
class WorkloadDescriberTest {
  private static final Instant NOW = Instant.parse("2026-03-01T12:10:00Z");

  @TempDir Path dir;

  private static WorkerGroup group(String name, int replicas) {
    return new WorkerGroup(name, replicas, TaskTemplate.EMPTY, List.of(), null);
  }

  private String describe(Workload w) {
    try (var store = SqliteStore.open(dir.resolve(w.metadata().name() + ".db"))) {
      var api = new ObjectRegistry(store, new DeterministicEnv(1));
      return Describers.describe(w, new DescribeContext(api, NOW));
    }
  }

  @Test
  void aWorkloadGangIsOneGangOverEveryGroupWithItsLine() {
    var waiting =
        new GangStatus(
            GangState.Waiting,
            GangStatus.WAITING_FOR_GANG,
            "gang mpi/* needs 1 × (1 gpu) + 6 × (4 gpu) at once; at most 4 fit now; it holds"
                + " nothing while it waits",
            Optional.of(NOW.minusSeconds(120)));
    var spec =
        new WorkloadSpec(
            List.of(
                group("launcher", 1),
                group("workers", 8)
                    .withGang(new GangSpec(Optional.of(6), Optional.empty(), Optional.empty()))),
            Optional.empty(),
            Optional.of(
                new GangSpec(
                    Optional.empty(),
                    MemberFailurePolicy.RestartGang,
                    new GangTopology(Optional.of(TopologyKeys.RACK), Optional.empty()))));
    var status =
        new WorkloadStatus(
            1,
            List.of(
                new GroupStatus("launcher", 1, 1, 0, 0, 0),
                new GroupStatus("workers", 8, 8, 0, 0, 0)),
            List.of(),
            Optional.of(waiting));

    var text = describe(new Workload(ObjectMeta.named("mpi"), spec, status));

    assertThat(text)
        .containsPattern("Gangs:\n  \\* \\(every group\\):\n    State:\\s+Waiting for 2m\n")
        .containsPattern("Min Member:\\s+7: launcher 1 of 1, workers 6 of 8 replicas\n")
        .containsPattern("On Member Failure:\\s+RestartGang\n")
        .containsPattern("Topology:\\s+one topology.quartermaster.dev/rack \\(required\\)\n")
        .containsPattern("Reason:\\s+WaitingForGang\n")
        .contains("needs 1 × (1 gpu) + 6 × (4 gpu) at once");
    assertThat(text).as("no group is a gang of its own").doesNotContain("  workers:\n");
  }

  @Test
  void aGroupGangIsShownAsBefore() {
    var spec =
        new WorkloadSpec(
            List.of(group("head", 1), group("workers", 3).withGang(GangSpec.ALL)),
            Optional.empty());
    var status =
        new WorkloadStatus(
            1,
            List.of(
                new GroupStatus("head", 1, 1, 1, 0, 0),
                new GroupStatus("workers", 3, 3, 3, 0, 0)
                    .withGang(
                        Optional.of(
                            new GangStatus(
                                GangState.Placed, "", "", Optional.of(NOW.minusSeconds(60)))))),
            List.of());

    var text = describe(new Workload(ObjectMeta.named("job"), spec, status));

    assertThat(text)
        .containsPattern("Gangs:\n  workers:\n    State:\\s+Placed for 60s\n")
        .containsPattern("Min Member:\\s+3 of 3 replicas\n")
        .containsPattern("On Member Failure:\\s+RestartMember\n")
        .containsPattern("Topology:\\s+anywhere\n");
    assertThat(text).doesNotContain("every group").doesNotContain("  head:\n");
  }
}
