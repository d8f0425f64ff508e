package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.lifecycle.TaskScheduler;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the workload's status says of a gang, with the real controllers on stale, reordered watches:
 * a gang that does not fit says Waiting with the allocator's own reason and message and counts none
 * placed; the status then stays still (no write while nothing changes); once the gang fits it says
 * Placed, every member counted, its wait timed from when it began.
 */
class GangStatusTest {
  private static final String JOB = "job";

  @Test
  void aWaitingGangSaysWhyCountsNonePlacedWritesNothingMoreAndThenSaysPlaced() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      var writes = new AtomicInteger();
      c.store()
          .onCommit(
              (revision, changes) ->
                  changes.stream()
                      .filter(e -> e.kv().key().equals("/registry/workloads/" + JOB))
                      .forEach(e -> writes.incrementAndGet()));
      start(c);
      for (int i = 0; i < 3; i++) {
        c.addNode("node-" + i, 4);
      }
      var created = c.env().now();
      c.api().create(workload(4, 4));
      c.runUntil(() -> false, Duration.ofMinutes(1));

      var waiting = group(c);
      assertThat(waiting.placed()).as("seed %d", seed).isZero();
      assertThat(waiting.live()).as("seed %d", seed).isEqualTo(4);
      var gang = waiting.gang().orElseThrow();
      assertThat(gang.state()).as("seed %d", seed).isEqualTo(GangState.Waiting);
      // 16 GPUs asked of a fleet of 12: it waits for the fleet to change, and says so.
      assertThat(gang.reason()).isEqualTo(GangStatus.NEVER_FITS);
      assertThat(gang.message())
          .as("seed %d", seed)
          .isEqualTo(
              "gang job/workers can never fit on this fleet: it needs 4 × (4 gpu) at once; the"
                  + " whole fleet (3 nodes, 12 gpu) holds at most 3 of its 4 members even with every"
                  + " device free; it waits, holding nothing, until the fleet changes (nodes join,"
                  + " leave or are relabelled)");
      var began = gang.since().orElseThrow();
      assertThat(began).as("seed %d: waiting since its first pass", seed).isAfterOrEqualTo(created);

      int settled = writes.get();
      c.runUntil(() -> false, Duration.ofMinutes(2));
      assertThat(writes.get())
          .as("seed %d: no workload write while nothing changes", seed)
          .isEqualTo(settled);

      c.addNode("node-3", 4);
      assertThat(
              c.runUntil(
                  () -> group(c).gang().map(g -> g.state() == GangState.Placed).orElse(false),
                  Duration.ofMinutes(1)))
          .as("seed %d: Placed once it fits", seed)
          .isTrue();
      c.runUntil(() -> group(c).placed() == 4, Duration.ofMinutes(1));
      var placed = group(c);
      assertThat(placed.placed()).as("seed %d", seed).isEqualTo(4);
      assertThat(placed.gang().orElseThrow().reason()).isEmpty();
      assertThat(placed.gang().orElseThrow().since().orElseThrow())
          .as("seed %d: a new state, a new since", seed)
          .isAfter(began);
    }
  }

  private static GroupStatus group(SimCluster c) {
    return c.api().get(Kinds.WORKLOAD, JOB).orElseThrow().status().groups().stream()
        .filter(g -> g.name().equals("workers"))
        .findFirst()
        .orElse(new GroupStatus("workers", 0, 0, 0, 0, 0));
  }

  private static Workload workload(int replicas, int gpus) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
                "workers",
                replicas,
                new TaskTemplate(
                    List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of()),
                List.of(claim),
                null)
            .withGang(
                new GangSpec(
                    Optional.empty(), MemberFailurePolicy.RestartGang, GangTopology.ANYWHERE));
    return new Workload(
        ObjectMeta.named(JOB),
        new WorkloadSpec(List.of(group), Optional.empty()),
        WorkloadStatus.EMPTY);
  }

  private static void start(SimCluster c) {
    c.deviceClass("gpu", "gpu");
    var inf = new Informers(c.env(), c.api());
    var loops =
        List.<ControlLoop>of(
            new Allocator(c.env(), c.api(), inf).loop(),
            new TaskScheduler(c.env(), c.api(), inf).loop(),
            new WorkloadController(c.env(), c.api(), inf, WorkloadOptions.of(Duration.ofMinutes(5)))
                .loop(),
            new TaskController(c.env(), c.api(), inf).loop());
    inf.start();
    loops.forEach(ControlLoop::start);
  }
}
