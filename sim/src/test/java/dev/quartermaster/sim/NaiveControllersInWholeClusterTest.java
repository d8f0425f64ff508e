package dev.quartermaster.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.lifecycle.NodeLifecycle;
import dev.quartermaster.control.lifecycle.TaskScheduler;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import dev.quartermaster.sim.world.Campaign;
import dev.quartermaster.sim.world.NaiveVariantsTest;
import dev.quartermaster.sim.world.Variant;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/**
 * The naive controllers kept for the scenario tests, plugged one at a time into the whole-cluster
 * simulation (one replica, no fail-over; everything else real, faults and all): each must be caught
 * on a seed the real system passes, within {@code NaiveVariantsTest}'s bound.
 */
class NaiveControllersInWholeClusterTest {

  /** Which controller is the naive one. */
  private enum Naive {
    WORKLOADS,
    SCHEDULER
  }

  private static Variant with(Naive naive) {
    return Variant.controllers(
        (env, api) -> {
          var inf = new Informers(env, api);
          var loops = new ArrayList<ControlLoop>();
          loops.add(new Allocator(env, api, inf).loop());
          loops.add(
              naive == Naive.WORKLOADS
                  ? new NaiveWorkloadController(env, api, inf).loop()
                  : new WorkloadController(
                          env,
                          api,
                          inf,
                          WorkloadOptions.of(WorkloadController.DEFAULT_EXPECTATION_BOUND))
                      .loop());
          loops.add(new TaskController(env, api, inf).loop());
          loops.add(
              naive == Naive.SCHEDULER
                  ? new NaiveTaskScheduler(env, api, inf).loop()
                  : new TaskScheduler(env, api, inf).loop());
          loops.add(new NodeLifecycle(env, api, inf, NodeLifecycle.DEFAULT_GRACE).loop());
          inf.start();
          loops.forEach(ControlLoop::start);
          return () -> {
            loops.forEach(ControlLoop::stop);
            inf.stop();
          };
        });
  }

  @Test
  void theIncidentsWorkloadControllerIsCaught() {
    Campaign.quiet();
    int seed = NaiveVariantsTest.firstCaught(with(Naive.WORKLOADS));
    System.out.println(
        "naive variant 'workload controller trusting its cache' caught at seed " + seed);
    assertTrue(seed > 0, "the naive workload controller went unnoticed");
  }

  @Test
  void aSchedulerThatWakesOnlyForOwnedClaimsIsCaught() {
    Campaign.quiet();
    int seed = NaiveVariantsTest.firstCaught(with(Naive.SCHEDULER));
    System.out.println(
        "naive variant 'scheduler deaf to stand-alone claims' caught at seed " + seed);
    assertTrue(seed > 0, "the naive scheduler went unnoticed");
  }
}
