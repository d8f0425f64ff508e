package dev.quartermaster.bench;

import dev.quartermaster.agent.NodeAgent;
import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.ControlPlane;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The whole path in one process, as {@code qm up} runs it: apply a workload of K one-GPU workers to
 * N simulated nodes with real agents (the no-op runtime, so the figure is the control path, not
 * process start-up) and time it until every task is Running — workload controller, claims,
 * allocator, scheduler, each agent's ledger with fsync, CDI specs, device check.
 */
final class EndToEndBench implements Bench.Benchmark {
  private static final int NODES = 16;
  private static final int GPUS = 8;
  private static final int TASKS = 128;

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("end to end: workload of " + TASKS + " x 1 GPU over " + NODES + " nodes x " + GPUS + " GPUs, real agents, noop runtime");
    var env = new SystemEnv();
    var agents = new ArrayList<NodeAgent>();
    try (var cluster = LocalServer.start(dir.resolve("e2e"));
        var controllers = ControlPlane.start(cluster.registry(), new dev.quartermaster.store.StoreLeases(cluster.store()), env, ControlPlane.Options.defaults("bench"))) {
      var api = cluster.registry();
      api.create(new DeviceClass(ObjectMeta.named("gpu"), new DeviceClassSpec("gpu", List.of()), DeviceClassStatus.EMPTY));
      for (int i = 0; i < NODES; i++) {
        var node = "node-" + i;
        var nodeDir = dir.resolve("e2e/nodes/" + node);
        SimulatedDeviceRoot.ensure(nodeDir.resolve("root"), GPUS);
        Files.createDirectories(nodeDir.resolve("state"));
        agents.add(NodeAgent.start(NodeAgentConfig.of(api, node, nodeDir.resolve("state"), DeviceRoot.at(nodeDir.resolve("root")),
            nodeDir.resolve("state/cdi"), env)));
      }
      awaitReadyNodes(api);
      var running = new CountDownLatch(TASKS);
      var seen = ConcurrentHashMap.<String>newKeySet();
      var phases = new ConcurrentHashMap<TaskPhase, java.util.concurrent.atomic.AtomicLong>();
      var started = new long[1];
      var lastCreated = new java.util.concurrent.atomic.AtomicLong();
      var watch = api.watch(Kinds.TASK, api.list(Kinds.TASK).revision(), new WatchHandler<Task>() {
        @Override
        public void onEvent(WatchEvent<Task> e) {
          // The last moment each phase was first reached by some task: where the time goes.
          phases.computeIfAbsent(e.object().status().phase(), p -> new java.util.concurrent.atomic.AtomicLong())
              .accumulateAndGet(Stopwatch.nanos() - started[0], Math::max);
          if (e.type() == WatchEvent.Type.ADDED) {
            lastCreated.accumulateAndGet(Stopwatch.nanos() - started[0], Math::max);
          }
          if (e.object().status().phase() == TaskPhase.Running && seen.add(e.object().metadata().name())) {
            running.countDown();
          }
        }

        @Override
        public void onGone(long compactedRevision) {}
      });
      var claim = new ResourceClaimSpec(List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty());
      var template = new TaskTemplate(List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of());
      var workload = new Workload(ObjectMeta.named("bench"), new WorkloadSpec(List.of(new WorkerGroup("w", TASKS, template,
          List.of(new ClaimTemplate("gpu", claim)), RestartPolicy.OnFailure)), Optional.empty()), WorkloadStatus.EMPTY);
      var clock = Stopwatch.start();
      started[0] = Stopwatch.nanos();
      api.create(workload);
      var done = running.await(600, TimeUnit.SECONDS);
      double seconds = clock.seconds();
      watch.close();
      report.figure("tasks/s, apply to all Running" + (done ? "" : " (INCOMPLETE: " + running.getCount() + " not running)"),
          (TASKS - running.getCount()) / seconds, "tasks/s", raw);
      report.line("  time to all " + TASKS + " Running", String.format("%.2f s", seconds));
      report.line("  last task created", String.format("%.2f s", lastCreated.get() / 1e9));
      for (var phase : TaskPhase.values()) {
        var at = phases.get(phase);
        if (at != null) {
          report.line("  last event of a task in phase " + phase, String.format("%.2f s", at.get() / 1e9));
        }
      }
      report.line("  resident memory (server, controllers and " + NODES + " agents in one JVM)", Memory.residentMiB() + " MiB");
    } finally {
      for (var a : agents) {
        a.close();
      }
    }
  }

  /** Waits, on the Node watch, until every agent has reported its node DevicesReady. */
  private static void awaitReadyNodes(dev.quartermaster.api.client.ApiClient api) throws InterruptedException {
    var readyNodes = ConcurrentHashMap.<String>newKeySet();
    var all = new CountDownLatch(1);
    var list = api.list(Kinds.NODE);
    list.items().stream().filter(EndToEndBench::ready).forEach(n -> readyNodes.add(n.metadata().name()));
    try (var watch = api.watch(Kinds.NODE, list.revision(), new WatchHandler<Node>() {
      @Override
      public void onEvent(WatchEvent<Node> e) {
        if (ready(e.object())) {
          readyNodes.add(e.object().metadata().name());
        }
        if (readyNodes.size() == NODES) {
          all.countDown();
        }
      }

      @Override
      public void onGone(long compactedRevision) {}
    })) {
      if (readyNodes.size() < NODES && !all.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("only " + readyNodes.size() + " of " + NODES + " nodes became ready in 120 s");
      }
    }
  }

  private static boolean ready(Node n) {
    return n.status().conditions().stream().anyMatch(c -> c.type().equals("DevicesReady") && c.isTrue());
  }
}
