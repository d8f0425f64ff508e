package dev.quartermaster.api.table;

import static dev.quartermaster.api.table.Fixtures.NOW;
import static dev.quartermaster.api.table.Fixtures.meta;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.workload.DeviceLossPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KindTablesTest {

  private static Node node(String name, long age, List<Condition> conditions) {
    return new Node(
        meta(name, age), null, new NodeStatus(conditions, Optional.empty(), "", "", List.of()));
  }

  private static Condition condition(
      String type, Condition.Status status, String reason, String message) {
    return new Condition(type, status, reason, message, Optional.of(NOW));
  }

  @Test
  void tasksShowTheirAttemptSoACrashLoopIsVisible() {
    var status =
        new TaskStatus(
            TaskPhase.Failed,
            "Error",
            "",
            Optional.of("node-1"),
            Optional.empty(),
            Optional.of(1),
            Optional.empty(),
            Optional.empty(),
            List.of());
    var first = new Task(meta("train-w-0", 5), TaskSpec.EMPTY, TaskStatus.EMPTY);
    var looping =
        new Task(
            meta("train-w-1", 5),
            new TaskSpec(
                Optional.empty(),
                List.of("false"),
                Map.of(),
                List.of(),
                List.of(),
                "exec",
                Optional.empty(),
                4,
                DeviceLossPolicy.Continue),
            status);

    var text = KindTables.of(Kinds.TASK, NOW).table(List.of(first, looping), false).render();

    assertThat(text)
        .isEqualTo(
            """
        NAME        PHASE     NODE     REASON   ATTEMPT   AGE
        train-w-0   Pending   <none>   <none>   0         5s
        train-w-1   Failed    node-1   Error    4         5s
        """);
  }

  @Test
  void nodesShowAgentAndDeviceReadinessWithTheExactReason() {
    var ready =
        node(
            "gpu-node-1",
            5,
            List.of(
                condition("AgentReady", Condition.Status.True, "", ""),
                condition("DevicesReady", Condition.Status.True, "", "")));
    var missing =
        node(
            "gpu-node-2",
            4 * 86400,
            List.of(
                condition("AgentReady", Condition.Status.True, "", ""),
                condition(
                    "DevicesReady",
                    Condition.Status.False,
                    "ControlNodeMissing",
                    "missing /dev/nvidia-uvm")));
    var silent = node("gpu-node-3", 200, List.of());

    var text =
        KindTables.of(Kinds.NODE, NOW).table(List.of(ready, missing, silent), false).render();

    assertThat(text)
        .isEqualTo(
            """
        NAME         READY     DEVICES                   SCHEDULING   GPUS   MIG FREE   SHARED FREE   AGE
        gpu-node-1   True      Ready                     enabled      ?      -          -             5s
        gpu-node-2   True      missing /dev/nvidia-uvm   enabled      ?      -          -             4d
        gpu-node-3   Unknown   Unknown                   enabled      ?      -          -             3m20s
        """);
  }

  @Test
  void aCordonedOrFencedNodeSaysSoInTheDefaultColumns() {
    var cordoned =
        new Node(meta("cordoned", 5), new dev.quartermaster.api.node.NodeSpec(true, false), null);
    var fenced =
        new Node(meta("fenced", 5), new dev.quartermaster.api.node.NodeSpec(true, true), null);

    var table = KindTables.of(Kinds.NODE, NOW);

    assertThat(table.row(cordoned, false)).contains("cordoned");
    assertThat(table.row(fenced, false)).contains("fenced");
  }

  @Test
  void claimsShowTheirStateNodeAndDevices() {
    var pending = new ResourceClaim(meta("pending", 10), null, null);
    var allocation =
        new Allocation(
            "gpu-node-1",
            List.of(new AllocatedDevice("gpu", "gpu-0"), new AllocatedDevice("gpu", "gpu-1")));
    var allocated =
        new ResourceClaim(
            meta("allocated", 10), null, ResourceClaimStatus.EMPTY.withAllocation(allocation));
    var prepared =
        new ResourceClaim(
            meta("prepared", 10),
            null,
            new ResourceClaimStatus(
                Optional.of(allocation),
                List.of(),
                Map.of(
                    "gpu-node-1",
                    new PrepareState(PrepareState.Phase.Prepared, "", List.of(), Optional.empty())),
                List.of()));

    var text =
        KindTables.of(Kinds.RESOURCE_CLAIM, NOW)
            .table(List.of(pending, allocated, prepared), false)
            .render();

    assertThat(text)
        .isEqualTo(
            """
        NAME        STATE       NODE         DEVICES       AGE
        pending     pending     <none>       <none>        10s
        allocated   allocated   gpu-node-1   gpu-0,gpu-1   10s
        prepared    prepared    gpu-node-1   gpu-0,gpu-1   10s
        """);
  }

  @Test
  void workloadsShowPlacedOverReplicasPerGroup() {
    var spec =
        new WorkloadSpec(
            List.of(
                new WorkerGroup("head", 1, TaskTemplate.EMPTY, List.of(), null),
                new WorkerGroup("workers", 4, TaskTemplate.EMPTY, List.of(), null)),
            Optional.empty());
    // Four live workers, two of them still waiting for devices: 2/4, not 4/4.
    var status =
        new WorkloadStatus(
            1, List.of(new GroupStatus("workers", 4, 4, 2, 0, 0, 2, Optional.empty())), List.of());
    var workload = new Workload(meta("training", 7200), spec, status);

    var row = KindTables.of(Kinds.WORKLOAD, NOW).row(workload, false);

    assertThat(row).containsExactly("training", "head 0/1, workers 2/4", "120m");
  }

  @Test
  void aWaitingGangIsMarked() {
    var workers =
        new WorkerGroup("workers", 4, TaskTemplate.EMPTY, List.of(), null).withGang(GangSpec.ALL);
    var eval =
        new WorkerGroup("eval", 4, TaskTemplate.EMPTY, List.of(), null).withGang(GangSpec.ALL);
    var spec = new WorkloadSpec(List.of(workers, eval), Optional.empty());
    var waiting = new GangStatus(GangState.Waiting, GangStatus.WAITING_FOR_GANG, "needs 4");
    var placed = new GangStatus(GangState.Placed, "", "");
    var status =
        new WorkloadStatus(
            1,
            List.of(
                new GroupStatus("workers", 4, 4, 0, 0, 0, 0, Optional.of(waiting)),
                new GroupStatus("eval", 4, 4, 4, 0, 0, 4, Optional.of(placed))),
            List.of());

    var row =
        KindTables.of(Kinds.WORKLOAD, NOW).row(new Workload(meta("job", 60), spec, status), false);

    assertThat(row).containsExactly("job", "workers 0/4 gang waiting, eval 4/4", "60s");

    // Issue 44: a placed gang that lost a member says so, not only a count.
    var partial = new GangStatus(GangState.Partial, GangStatus.MEMBERS_MISSING, "1 of 4 placed");
    var drained =
        new WorkloadStatus(
            1,
            List.of(
                new GroupStatus("workers", 4, 4, 0, 0, 0, 0, Optional.of(waiting)),
                new GroupStatus("eval", 4, 4, 1, 0, 0, 1, Optional.of(partial))),
            List.of());
    assertThat(
            KindTables.of(Kinds.WORKLOAD, NOW)
                .row(new Workload(meta("job", 60), spec, drained), false))
        .containsExactly("job", "workers 0/4 gang waiting, eval 1/4 gang partial", "60s");
  }

  /**
   * A gang whose workload waits for its queue, or is being evicted, waits for no device: the row
   * says where it stands with its queue, not {@code gang waiting}.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "Pending, workers 0/4 (waiting for admission)",
    "Preempting, workers 0/4 (waiting for admission)",
    "Reclaimed, workers 0/4 (evicted)",
    "Preempted, workers 0/4 (evicted)"
  })
  void aGangNotAdmittedOrEvictedIsNotMarkedWaiting(String reason, String groups) {
    var workers =
        new WorkerGroup("workers", 4, TaskTemplate.EMPTY, List.of(), null).withGang(GangSpec.ALL);
    var spec = new WorkloadSpec(List.of(workers), Optional.empty());
    var waiting =
        new GangStatus(
            GangState.Waiting, GangStatus.WAITING_FOR_GANG, "0 of 4 members exist so far");
    var admitted =
        new dev.quartermaster.api.meta.Condition(
            dev.quartermaster.api.workload.WorkloadConditions.ADMITTED,
            dev.quartermaster.api.meta.Condition.Status.False,
            reason,
            "",
            Optional.of(NOW));
    var status =
        new WorkloadStatus(
            1,
            List.of(new GroupStatus("workers", 4, 0, 0, 0, 0, 0, Optional.of(waiting))),
            List.of(admitted));

    var row =
        KindTables.of(Kinds.WORKLOAD, NOW).row(new Workload(meta("job", 60), spec, status), false);

    assertThat(row).containsExactly("job", groups, "60s");
  }

  @Test
  void aGangThatCanNeverFitSaysSo() {
    var workers =
        new WorkerGroup("workers", 3, TaskTemplate.EMPTY, List.of(), null).withGang(GangSpec.ALL);
    var spec = new WorkloadSpec(List.of(workers), Optional.empty());
    var never = new GangStatus(GangState.Waiting, GangStatus.NEVER_FITS, "can never fit");
    var status =
        new WorkloadStatus(
            1,
            List.of(new GroupStatus("workers", 3, 3, 0, 0, 0, 0, Optional.of(never))),
            List.of());

    var row =
        KindTables.of(Kinds.WORKLOAD, NOW).row(new Workload(meta("big", 60), spec, status), false);

    assertThat(row).containsExactly("big", "workers 0/3 gang never fits", "60s");
  }

  /** A workload gang's line is the workload's: each of its groups waits with it. */
  @Test
  void aWaitingWorkloadGangMarksEachOfItsGroups() {
    var launcher = new WorkerGroup("launcher", 1, TaskTemplate.EMPTY, List.of(), null);
    var workers = new WorkerGroup("workers", 4, TaskTemplate.EMPTY, List.of(), null);
    var spec =
        new WorkloadSpec(List.of(launcher, workers), Optional.empty(), Optional.of(GangSpec.ALL));
    var waiting = new GangStatus(GangState.Waiting, GangStatus.WAITING_FOR_GANG, "needs 5");
    var status =
        new WorkloadStatus(
            1,
            List.of(
                new GroupStatus("launcher", 1, 1, 0, 0, 0, 0, Optional.empty()),
                new GroupStatus("workers", 4, 4, 0, 0, 0, 0, Optional.empty())),
            List.of(),
            Optional.of(waiting));

    var row =
        KindTables.of(Kinds.WORKLOAD, NOW).row(new Workload(meta("mpi", 60), spec, status), false);

    assertThat(row)
        .containsExactly("mpi", "launcher 0/1 gang waiting, workers 0/4 gang waiting", "60s");
  }

  @Test
  void volumesShowHumanCapacity() {
    var volume =
        new Volume(
            meta("datasets", 30),
            new VolumeSpec(
                "hostpath.csi.quartermaster.dev",
                10L << 30,
                VolumeSpec.AccessMode.MultiNodeReaderOnly,
                Map.of()),
            null);

    var row = KindTables.of(Kinds.VOLUME, NOW).row(volume, false);

    assertThat(row)
        .containsExactly(
            "datasets",
            "hostpath.csi.quartermaster.dev",
            "10Gi",
            "MultiNodeReaderOnly",
            "0/0",
            "Pending",
            "30s");
  }

  @Test
  void volumesCountLiveReadersAndWritersAndShowUseBeforePhase() {
    var spec =
        new VolumeSpec(
            "hostpath.csi.quartermaster.dev",
            1L << 30,
            VolumeSpec.AccessMode.MultiNodeReaderOnly,
            Map.of());
    var available =
        new VolumeStatus(VolumePhase.Available, "vol-1", 1L << 30, List.of(), List.of());
    var readers =
        available.withClaims(
            List.of(
                new VolumeClaim("a", "node-1", VolumeClaim.Mode.Read, VolumeClaim.State.Taken),
                new VolumeClaim("b", "node-2", VolumeClaim.Mode.Read, VolumeClaim.State.Taken),
                new VolumeClaim("c", "node-2", VolumeClaim.Mode.Write, VolumeClaim.State.Free)));
    var releasing =
        available.withClaims(
            List.of(
                new VolumeClaim("a", "node-1", VolumeClaim.Mode.Read, VolumeClaim.State.Taken),
                new VolumeClaim(
                    "w", "node-3", VolumeClaim.Mode.Write, VolumeClaim.State.NodeDetached)));
    var volumes =
        List.of(
            new Volume(meta("idle", 5), spec, available),
            new Volume(meta("read", 5), spec, readers),
            new Volume(meta("going", 5), spec, releasing));

    var text = KindTables.of(Kinds.VOLUME, NOW).table(volumes, false).render();

    assertThat(text)
        .isEqualTo(
            """
        NAME    PLUGIN                           CAPACITY   ACCESS                CLAIMS   PHASE       AGE
        idle    hostpath.csi.quartermaster.dev   1Gi        MultiNodeReaderOnly   0/0      Available   5s
        read    hostpath.csi.quartermaster.dev   1Gi        MultiNodeReaderOnly   2/0      InUse       5s
        going   hostpath.csi.quartermaster.dev   1Gi        MultiNodeReaderOnly   1/1      Releasing   5s
        """);
  }

  @Test
  void wideAddsRevisionUidAndLabelsAfterAge() {
    var node = new Node(meta("n1", 5, Map.of("zone", "a", "gpu", "a100")), null, null);

    var table = KindTables.of(Kinds.NODE, NOW);

    assertThat(table.headers(true))
        .endsWith("AGE", "HEARTBEAT", "VERSION", "REVISION", "UID", "LABELS");
    assertThat(table.row(node, true))
        .endsWith("5s", "<none>", "<none>", "7", "uid-n1", "gpu=a100,zone=a");
  }

  @Test
  void everyKindHasATableWithNameFirstAndAgeLast() {
    for (var kind : Kinds.ALL) {
      if (kind.equals(Kinds.EVENT)) {
        continue; // events read as kubectl's do: see the next test
      }
      var headers = KindTables.of(kind, NOW).headers(false);
      assertThat(headers.getFirst()).as(kind.name()).isEqualTo("NAME");
      assertThat(headers.getLast()).as(kind.name()).isEqualTo("AGE");
    }
  }

  @Test
  void eventsShowWhenWhatWhyAboutWhatAndHowOften() {
    var spec =
        new dev.quartermaster.api.event.EventSpec(
            new dev.quartermaster.api.event.InvolvedObject("Task", "t-0"),
            dev.quartermaster.api.event.EventType.Warning,
            "BackOff",
            "restarting in 10s",
            "workloads",
            3,
            NOW.minusSeconds(120),
            NOW.minusSeconds(5));
    var event =
        new dev.quartermaster.api.event.Event(
            dev.quartermaster.api.meta.ObjectMeta.named("t-0-1a2b3c4d"),
            spec,
            dev.quartermaster.api.event.EventStatus.EMPTY);
    var table = KindTables.of(Kinds.EVENT, NOW);
    assertThat(table.headers(false))
        .containsExactly("LAST SEEN", "TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE");
    assertThat(table.row(event, false))
        .containsExactly("5s", "Warning", "BackOff", "task/t-0", "3", "restarting in 10s");
  }
}
