package dev.quartermaster.bench;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.DeviceCheck;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.Env;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * The agents of a fleet too large to run, as the {@code fleet} and {@code scale} benches stand them
 * in: a watch of tasks makes, for each task scheduled to a node, what that node's agent writes (its
 * finalizer and Prepared on each claim, a live read of the task, then Running with its device
 * check: a quick start writes nothing between), on 32 virtual threads; each task's first Running is
 * told to {@code onRunning}.
 */
final class StandInAgents implements AutoCloseable {
  private final WatchHandle watch;
  private final ExecutorService agents;

  private StandInAgents(WatchHandle watch, ExecutorService agents) {
    this.watch = watch;
    this.agents = agents;
  }

  static StandInAgents start(ApiClient api, Env env, Consumer<Task> onRunning) {
    var agents = Executors.newFixedThreadPool(32, Thread.ofVirtual().factory());
    var handled = ConcurrentHashMap.<String>newKeySet();
    var running = ConcurrentHashMap.<String>newKeySet();
    var watch =
        api.watch(
            Kinds.TASK,
            api.list(Kinds.TASK).revision(),
            new WatchHandler<Task>() {
              @Override
              public void onEvent(WatchEvent<Task> e) {
                var t = e.object();
                if (t.status().phase() == TaskPhase.Scheduled && handled.add(t.metadata().name())) {
                  agents.submit(() -> actAsAgent(api, env, t));
                }
                if (t.status().phase() == TaskPhase.Running && running.add(t.metadata().name())) {
                  onRunning.accept(t);
                }
              }

              @Override
              public void onGone(long compactedRevision) {}
            });
    return new StandInAgents(watch, agents);
  }

  @Override
  public void close() {
    watch.close();
    agents.close();
  }

  /** What the node's agent writes for a task scheduled to it, in its order. */
  private static Void actAsAgent(ApiClient api, Env env, Task scheduled) {
    var node = scheduled.status().node().orElseThrow();
    var finalizer = new AgentFinalizer(node).name();
    for (var name : scheduled.spec().claims()) {
      var c = api.get(Kinds.RESOURCE_CLAIM, name).orElseThrow();
      if (!c.metadata().finalizers().contains(finalizer)) { // the allocator put it on
        c = api.update(new AgentFinalizer(node).on(c));
      }
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
