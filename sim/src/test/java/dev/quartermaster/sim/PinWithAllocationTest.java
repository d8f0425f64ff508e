package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.lifecycle.TaskScheduler;
import dev.quartermaster.store.StoreEvent;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, fewer writes per task: the allocator pins a task to the node its claims get in the very
 * transaction that allocates them, and when those claims are all of the task's, reserves them for
 * it and schedules it there too (one decision, one transaction: the scheduler's pass finds nothing
 * to do). A task whose claim was allocated before it existed is still pinned and scheduled by the
 * scheduler. Every commit is read as it lands: which revision set each task's {@code spec.node} and
 * its {@code Scheduled}, and which allocated and reserved each claim.
 */
class PinWithAllocationTest {
  private static final int TASKS = 6;

  /** Revisions seen in commits: where each task was pinned, where each claim was allocated. */
  private static final class Commits implements CommitListener {
    final Map<String, Long> pinned = new HashMap<>();
    final Map<String, Long> scheduled = new HashMap<>();
    final Map<String, Long> allocated = new HashMap<>();
    final Map<String, Long> reserved = new HashMap<>();
    final Map<String, Integer> taskWrites = new HashMap<>();

    @Override
    public synchronized void committed(long revision, List<StoreEvent> changes) {
      for (var e : changes) {
        if (e.type() != StoreEvent.Type.PUT) {
          continue;
        }
        var key = e.kv().key();
        if (key.startsWith("/registry/tasks/")) {
          var t = ObjectCodec.fromJson(e.kv().value(), Kinds.TASK);
          taskWrites.merge(t.metadata().name(), 1, Integer::sum);
          if (t.spec().node().isPresent()) {
            pinned.putIfAbsent(t.metadata().name(), revision);
          }
          if (t.status().phase() == TaskPhase.Scheduled) {
            scheduled.putIfAbsent(t.metadata().name(), revision);
          }
        } else if (key.startsWith("/registry/resourceclaims/")) {
          var c = ObjectCodec.fromJson(e.kv().value(), Kinds.RESOURCE_CLAIM);
          if (c.status().allocation().isPresent()) {
            allocated.putIfAbsent(c.metadata().name(), revision);
          }
          if (!c.status().reservedFor().isEmpty()) {
            reserved.putIfAbsent(c.metadata().name(), revision);
          }
        }
      }
    }
  }

  @Test
  void theAllocatorPinsReservesAndSchedulesTheTaskInTheTransactionThatAllocatesItsClaim() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      var commits = start(c);
      c.addNode("node-0", 4);
      c.addNode("node-1", 4);
      for (int i = 0; i < TASKS; i++) {
        var t = c.api().create(task("t" + i, "t" + i + "-gpu"));
        c.api().create(claim("t" + i + "-gpu", Optional.of(OwnerReference.of(t))));
      }
      assertThat(c.runUntil(() -> allScheduled(c), Duration.ofMinutes(2)))
          .as("seed %d: all Scheduled", seed)
          .isTrue();
      for (int i = 0; i < TASKS; i++) {
        var allocatedAt = commits.allocated.get("t" + i + "-gpu");
        assertThat(commits.pinned.get("t" + i))
            .as("seed %d: t%d pinned in the revision that allocated its claim", seed, i)
            .isNotNull()
            .isEqualTo(allocatedAt);
        assertThat(commits.scheduled.get("t" + i))
            .as("seed %d: t%d Scheduled in that revision", seed, i)
            .isEqualTo(allocatedAt);
        assertThat(commits.reserved.get("t" + i + "-gpu"))
            .as("seed %d: its claim reserved in it", seed)
            .isEqualTo(allocatedAt);
        var t = c.api().get(Kinds.TASK, "t" + i).orElseThrow();
        var claim = c.api().get(Kinds.RESOURCE_CLAIM, "t" + i + "-gpu").orElseThrow();
        assertThat(t.spec().node()).isEqualTo(claim.status().allocation().map(a -> a.node()));
        assertThat(t.status().node()).isEqualTo(t.spec().node());
        assertThat(claim.status().reservedFor()).containsExactly("t" + i);
        // Created, then pinned and Scheduled with the allocation; a Pending reason at most besides.
        assertThat(commits.taskWrites.get("t" + i))
            .as("seed %d: writes of t%d", seed, i)
            .isBetween(2, 3);
      }
    }
  }

  @Test
  void aTaskWhoseClaimWasAllocatedBeforeItIsPinnedByTheScheduler() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      var commits = start(c);
      c.addNode("node-0", 4);
      c.api().create(claim("shared", Optional.empty()));
      assertThat(c.runUntil(() -> commits.allocated.containsKey("shared"), Duration.ofMinutes(1)))
          .isTrue();
      c.api().create(task("late", "shared"));
      assertThat(c.runUntil(() -> allScheduledOf(c, "late"), Duration.ofMinutes(1)))
          .as("seed %d", seed)
          .isTrue();
      assertThat(commits.pinned.get("late"))
          .as("seed %d: pinned after the claim's allocation", seed)
          .isGreaterThan(commits.allocated.get("shared"));
      assertThat(c.api().get(Kinds.RESOURCE_CLAIM, "shared").orElseThrow().status().reservedFor())
          .containsExactly("late");
      assertThat(c.api().get(Kinds.TASK, "late").orElseThrow().spec().node()).contains("node-0");
    }
  }

  /**
   * The allocator and the scheduler running on {@code c}, every commit read by the returned {@link
   * Commits}.
   */
  private static Commits start(SimCluster c) {
    var commits = new Commits();
    c.store().onCommit(commits);
    c.deviceClass("gpu", "gpu");
    var inf = new Informers(c.env(), c.api());
    var loops =
        List.of(
            new Allocator(c.env(), c.api(), inf).loop(),
            new TaskScheduler(c.env(), c.api(), inf).loop());
    inf.start();
    loops.forEach(ControlLoop::start);
    return commits;
  }

  private static boolean allScheduled(SimCluster c) {
    for (int i = 0; i < TASKS; i++) {
      if (!allScheduledOf(c, "t" + i)) {
        return false;
      }
    }
    return true;
  }

  private static boolean allScheduledOf(SimCluster c, String task) {
    return c.api()
        .get(Kinds.TASK, task)
        .map(t -> t.status().phase() == TaskPhase.Scheduled)
        .orElse(false);
  }

  private static ResourceClaim claim(String name, Optional<OwnerReference> owner) {
    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty());
    var meta = ObjectMeta.named(name);
    return new ResourceClaim(
        owner.map(meta::withOwner).orElse(meta), spec, ResourceClaimStatus.EMPTY);
  }

  private static Task task(String name, String claim) {
    return new Task(
        ObjectMeta.named(name),
        new TaskSpec(
            Optional.empty(),
            List.of("train"),
            Map.of(),
            List.of(claim),
            List.of(),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }
}
