package dev.quartermaster.bench;

import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Issue 13's fleet figure, the server's side: a workload of 10,000 one-GPU tasks over 1,000 ready
 * nodes of 10 GPUs, from apply to all Running, then the heap after a full GC. The JVM holds the
 * store, the registry and the controllers, and no agents: 1,000 real agents in one JVM would
 * measure themselves. Their writes are made by a stand-in, as an agent makes them for each task
 * scheduled to its node: its finalizer on each claim, the claim Prepared there, the task Preparing,
 * then Running with its device check passed. So the store, the watches and the controllers' caches
 * carry what they carry with real agents, but nobody watches per node.
 */
final class FleetBench implements Bench.Benchmark {
  private static final int NODES = Integer.getInteger("qm.bench.fleetNodes", 1_000);
  private static final int TASKS = Integer.getInteger("qm.bench.fleetTasks", 10_000);
  private static final int GPUS = Math.max(8, (TASKS + NODES - 1) / NODES);

  /** Issue 13: the server's heap after a full GC, with every task Running. */
  private static final long TARGET_HEAP_MIB = 1_024;

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "fleet: workload of "
            + TASKS
            + " x 1 GPU over "
            + NODES
            + " nodes x "
            + GPUS
            + " GPUs; server and controllers, agents' writes by a stand-in");
    try (var cluster = LocalServer.start(dir.resolve("fleet"))) {
      ControlPlaneBench.fleet(cluster, report, NODES, GPUS);
      var api = cluster.registry();
      var env = new SystemEnv();
      var running = new CountDownLatch(TASKS);
      try (var controllers = ControlPlaneBench.startControllers(cluster);
          var agents = StandInAgents.start(api, env, t -> running.countDown())) {
        var census = WriteCensus.watch(cluster.store());
        var clock = Stopwatch.start();
        long cpuBefore = CpuTime.nanos();
        api.create(Workloads.oneGpuEach("fleet", TASKS));
        boolean done = false;
        for (int waited = 0; waited < 600 && !done; waited += 10) {
          done = running.await(10, TimeUnit.SECONDS);
          if (!done) {
            report.line(
                String.format("  after %d s", waited + 10),
                (TASKS - running.getCount()) + " Running");
          }
        }
        double seconds = clock.seconds();
        long cpu = CpuTime.nanos() - cpuBefore;
        census.close();
        report.figure(
            "tasks/s, apply to all Running"
                + (done ? "" : " (INCOMPLETE: " + running.getCount() + " not running)"),
            (TASKS - running.getCount()) / seconds,
            "tasks/s",
            raw);
        report.line(
            "  CPU per task (server, controllers and the stand-in's writes)",
            String.format("%.2f ms", cpu / 1e6 / TASKS));
        report.line(
            "  store transactions per task (all writers)",
            String.format("%.1f", census.transactions() / (double) TASKS));
        report.line("  object writes per task, by kind", census.perKind(TASKS));
        long heap = Memory.heapAfterGcMiB();
        report.line(
            "  heap after a full GC (server and controllers; all " + TASKS + " tasks Running)",
            heap + " MiB");
        report.line(
            "  target for that heap: under " + TARGET_HEAP_MIB + " MiB",
            heap < TARGET_HEAP_MIB ? "met" : "NOT met");
        report.line("  resident memory", Memory.residentMiB() + " MiB");
      }
    }
  }
}
