package dev.quartermaster.bench;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.DeviceCheck;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
      var seen = ConcurrentHashMap.<String>newKeySet();
      var handled = ConcurrentHashMap.<String>newKeySet();
      try (var controllers = ControlPlaneBench.startControllers(cluster);
          ExecutorService agents = Executors.newFixedThreadPool(32, Thread.ofVirtual().factory())) {
        var watch =
            api.watch(
                Kinds.TASK,
                api.list(Kinds.TASK).revision(),
                new WatchHandler<Task>() {
                  @Override
                  public void onEvent(WatchEvent<Task> e) {
                    var t = e.object();
                    if (t.status().phase() == TaskPhase.Scheduled
                        && handled.add(t.metadata().name())) {
                      agents.submit(() -> actAsAgent(api, env, t));
                    }
                    if (t.status().phase() == TaskPhase.Running && seen.add(t.metadata().name())) {
                      running.countDown();
                    }
                  }

                  @Override
                  public void onGone(long compactedRevision) {}
                });
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
        watch.close();
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

  /** What the node's agent writes for a task scheduled to it, in its order. */
  static Void actAsAgent(ApiClient api, Env env, Task scheduled) {
    var node = scheduled.status().node().orElseThrow();
    var finalizer = new AgentFinalizer(node).name();
    for (var name : scheduled.spec().claims()) {
      var c = api.get(Kinds.RESOURCE_CLAIM, name).orElseThrow();
      var finalizers = new ArrayList<>(c.metadata().finalizers());
      finalizers.add(finalizer);
      c = api.update(c.withMetadata(c.metadata().withFinalizers(finalizers)));
      var prepare = new HashMap<>(c.status().prepare());
      prepare.put(
          node,
          new PrepareState(
              PrepareState.Phase.Prepared,
              "",
              List.of("quartermaster.dev/gpu=" + c.metadata().uid()),
              Optional.of(env.now())));
      var s = c.status();
      api.updateStatus(
          c.withStatus(
              new ResourceClaimStatus(s.allocation(), s.reservedFor(), prepare, s.conditions())));
    }
    // The agent reads the task live before the start (no status write: the start is quick here).
    var t = api.get(Kinds.TASK, scheduled.metadata().name()).orElseThrow();
    var opened = List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0");
    var s = t.status();
    api.updateStatus(
        t.withStatus(
            new TaskStatus(
                TaskPhase.Running,
                "DeviceCheckPassed",
                "opened " + opened.size() + " device nodes",
                s.node(),
                Optional.of(new DeviceCheck(true, opened, Optional.empty())),
                s.exitCode(),
                Optional.of(env.now()),
                s.finishedAt(),
                s.conditions())));
    return null;
  }
}
