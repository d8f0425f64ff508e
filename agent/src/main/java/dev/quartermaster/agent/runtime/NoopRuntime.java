package dev.quartermaster.agent.runtime;

import dev.quartermaster.agent.cdi.CdiDeviceNode;
import dev.quartermaster.agent.cdi.CdiResolver;
import java.util.List;
import java.util.Objects;

/**
 * Runs nothing: a task counts as running at once and never exits until killed (exit 137), for
 * benchmarks of everything around the runtime. Its device check resolves the task's CDI names (an
 * unresolvable one fails the start, as with the real runtimes) and reports their nodes as opened
 * without opening them, since no process will use them.
 */
public final class NoopRuntime implements TaskRuntime {
  private static final int KILLED = 128 + 9;

  private final CdiResolver resolver;

  public NoopRuntime(CdiResolver resolver) {
    this.resolver = Objects.requireNonNull(resolver, "resolver");
  }

  @Override
  public TaskHandle start(TaskLaunch launch) {
    var task = new RuntimeTask(launch.name(), launch.output());
    List<String> paths;
    try {
      paths =
          resolver.resolve(launch.cdiDevices()).deviceNodes().stream()
              .map(CdiDeviceNode::path)
              .distinct()
              .toList();
    } catch (CdiResolver.UnresolvableException e) {
      task.finish(new TaskResult.StartFailed(e.getMessage()));
      return task;
    }
    var passed = new DeviceCheck.Passed(paths);
    task.onKill(tree -> task.finish(new TaskResult.Exited(KILLED, passed)));
    task.running(passed);
    return task;
  }
}
