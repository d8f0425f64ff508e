package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.lifecycle.TaskScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, holes 5 and 1: {@code examples/resourceclaim.yaml} + {@code examples/task.yaml}. A task
 * names a stand-alone claim (owned by nobody) that is allocated only after the task exists; the
 * scheduler must notice the allocation and schedule it, reserving the claim for it first, and
 * release the reservation once the task is finished or gone. The claim is shared by a second task.
 * A task not pinned yet is pinned, reserved and scheduled by the allocator with the allocation (see
 * {@code Scheduling}), so half the seeds pin it to the node first: those are the scheduler's.
 */
class StandaloneClaimTest {

  record Outcome(boolean scheduled, List<String> violations, List<String> staleReservations) {}

  @Test
  void aTaskOnAStandaloneClaimIsScheduledOnceTheClaimIsAllocatedAndReservationsFollowIt() {
    var failures = new ArrayList<String>();
    for (long seed : SimCluster.seeds(20)) {
      for (boolean allocatedFirst : new boolean[] {false, true}) {
        var o =
            run(seed, allocatedFirst, (c, inf) -> new TaskScheduler(c.env(), c.api(), inf).loop());
        if (!o.scheduled() || !o.violations().isEmpty() || !o.staleReservations().isEmpty()) {
          failures.add("seed " + seed + " allocatedFirst=" + allocatedFirst + ": " + o);
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void theNaiveSchedulerIsCaught() {
    int stuck = 0;
    int unreserved = 0;
    for (long seed : SimCluster.seeds(20)) {
      var late = run(seed, false, (c, inf) -> new NaiveTaskScheduler(c.env(), c.api(), inf).loop());
      stuck += late.scheduled() ? 0 : 1;
      // Allocated before the task exists, the naive scheduler does schedule it: without a
      // reservation.
      var early = run(seed, true, (c, inf) -> new NaiveTaskScheduler(c.env(), c.api(), inf).loop());
      unreserved += early.violations().isEmpty() ? 0 : 1;
    }
    System.out.println(
        "standalone-claim: naive scheduler left the task Pending in "
            + stuck
            + " and scheduled it"
            + " without a reservation in "
            + unreserved
            + " of "
            + SimCluster.seeds(20).length
            + " seeds");
    assertThat(stuck).isPositive();
    assertThat(unreserved).isPositive();
  }

  private Outcome run(
      long seed, boolean allocatedFirst, BiFunction<SimCluster, Informers, ControlLoop> scheduler) {
    var c = new SimCluster(seed, WatchFaults.staleCache());
    var checker = new ReservationChecker();
    c.store().onCommit(checker);
    c.deviceClass("gpu-any", "gpu");
    var inf = new Informers(c.env(), c.api());
    var loops = List.of(new Allocator(c.env(), c.api(), inf).loop(), scheduler.apply(c, inf));
    inf.start();
    loops.forEach(ControlLoop::start);
    var random = c.env().random();
    if (allocatedFirst) {
      c.addNode("node-1", 1);
      c.api().create(claim());
      c.runUntil(
          () ->
              c.api()
                  .get(Kinds.RESOURCE_CLAIM, "single-gpu")
                  .orElseThrow()
                  .status()
                  .allocation()
                  .isPresent(),
          Duration.ofMinutes(1));
      c.api().create(task("smoke-test"));
    } else {
      lateAllocation(c, random);
    }
    boolean scheduled =
        c.runUntil(() -> phase(c, "smoke-test") == TaskPhase.Scheduled, Duration.ofMinutes(2));
    if (!scheduled) {
      return new Outcome(false, checker.violations(), List.of());
    }
    // A second task shares the claim; then one finishes and the other is deleted.
    c.api().create(task("smoke-again"));
    c.runUntil(() -> phase(c, "smoke-again") == TaskPhase.Scheduled, Duration.ofMinutes(1));
    var t = c.api().get(Kinds.TASK, "smoke-test").orElseThrow();
    var s = t.status();
    c.api()
        .updateStatus(
            t.withStatus(
                new TaskStatus(
                    TaskPhase.Succeeded,
                    "Exited",
                    "",
                    s.node(),
                    s.deviceCheck(),
                    Optional.of(0),
                    Optional.of(c.env().now()),
                    Optional.of(c.env().now()),
                    s.conditions())));
    c.api().delete(Kinds.TASK, "smoke-again");
    c.runUntil(() -> reserved(c).isEmpty(), Duration.ofMinutes(1));
    return new Outcome(true, checker.violations(), checker.stale());
  }

  /** The operator applies both files in either order; the node's devices appear a little later. */
  private static void lateAllocation(SimCluster c, java.util.random.RandomGenerator random) {
    var node = random.nextBoolean() ? Optional.of("node-1") : Optional.<String>empty();
    if (random.nextBoolean()) {
      c.api().create(claim());
      c.env().advance(Duration.ofMillis(random.nextLong(1500)));
      c.api().create(task("smoke-test", node));
    } else {
      c.api().create(task("smoke-test", node));
      c.env().advance(Duration.ofMillis(random.nextLong(1500)));
      c.api().create(claim());
    }
    c.env().advance(Duration.ofMillis(random.nextLong(3000)));
    c.addNode("node-1", 1);
  }

  private static List<String> reserved(SimCluster c) {
    return c.api()
        .get(Kinds.RESOURCE_CLAIM, "single-gpu")
        .map(x -> x.status().reservedFor())
        .orElse(List.of());
  }

  private static TaskPhase phase(SimCluster c, String task) {
    return c.api().get(Kinds.TASK, task).map(t -> t.status().phase()).orElse(TaskPhase.Pending);
  }

  private static ResourceClaim claim() {
    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu-any", 1, List.of())), Optional.empty());
    return new ResourceClaim(
        ObjectMeta.named("single-gpu").withLabels(Map.of("team", "research")),
        spec,
        ResourceClaimStatus.EMPTY);
  }

  private static Task task(String name) {
    return task(name, Optional.empty());
  }

  private static Task task(String name, Optional<String> node) {
    return new Task(
        ObjectMeta.named(name),
        new TaskSpec(
            node,
            List.of("nvidia-smi"),
            Map.of(),
            List.of("single-gpu"),
            List.of(),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }
}
