package dev.quartermaster.agent.runtime;

import dev.quartermaster.agent.cdi.CdiResolver;
import dev.quartermaster.agent.cdi.ContainerEdits;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.util.ArrayList;
import java.util.Objects;

/**
 * Runs a task as a local process on the host. Its CDI devices are resolved like a container runtime
 * would ({@link CdiResolver}): their {@code env} edits are applied after the task's own environment
 * and the values composed from exactly those devices ({@link
 * dev.quartermaster.agent.cdi.DeviceVariables}, as the podman runtime passes them), and every
 * device node's host path is opened read-only before the process starts. A node that does not open
 * fails the task with the path and the error, and the command never runs.
 *
 * <p>There is no device cgroup here: the check is what keeps a task from running without a node.
 */
public final class ExecRuntime implements TaskRuntime {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ExecRuntime.class);

  /** How long the leftovers of a task's group may take to die before the agent says so. */
  private static final java.time.Duration LEFTOVERS = java.time.Duration.ofSeconds(10);

  private final CdiResolver resolver;

  public ExecRuntime(CdiResolver resolver) {
    this.resolver = Objects.requireNonNull(resolver, "resolver");
  }

  @Override
  public TaskHandle start(TaskLaunch launch) {
    var task = new RuntimeTask(launch.name(), launch.output());
    if (!(launch.image() instanceof TaskImage.Host)) {
      task.finish(
          new TaskResult.StartFailed(
              "the exec runtime runs tasks on the host file system; "
                  + launch.image()
                  + " needs the podman runtime"));
      return task;
    }
    ContainerEdits edits;
    try {
      edits = resolver.resolve(launch.cdiDevices());
    } catch (CdiResolver.UnresolvableException e) {
      task.finish(new TaskResult.StartFailed(e.getMessage()));
      return task;
    }
    var check = HostDeviceCheck.run(edits.deviceNodes());
    if (check instanceof DeviceCheck.Failed failed) {
      task.finish(new TaskResult.DeviceCheckFailed(failed));
      return task;
    }
    var passed = (DeviceCheck.Passed) check;
    var builder =
        new ProcessBuilder(OwnSession.of(launch.command()))
            .redirectErrorStream(true)
            .redirectOutput(
                Redirect.appendTo(launch.output().toFile())) // appended: rotation truncates it
            .redirectInput(Redirect.from(new java.io.File("/dev/null")));
    var environment = builder.environment();
    environment.putAll(launch.env());
    var deviceEnv = new ArrayList<>(edits.composedEnv());
    deviceEnv.addAll(edits.env()); // CDI's own edits last, as a container runtime applies them
    for (var entry : deviceEnv) {
      int eq = entry.indexOf('=');
      if (eq > 0) {
        environment.put(entry.substring(0, eq), entry.substring(eq + 1));
      }
    }
    var program = launch.command().getFirst();
    if (OwnSession.resolve(program, environment.getOrDefault("PATH", "")).isEmpty()) {
      task.finish(
          new TaskResult.StartFailed(
              "cannot start "
                  + program
                  + ": no such executable file"
                  + (program.contains("/")
                      ? ""
                      : " on the PATH (" + environment.get("PATH") + ")")));
      return task;
    }
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      task.finish(
          new TaskResult.StartFailed(
              "cannot start " + launch.command().getFirst() + ": " + e.getMessage()));
      return task;
    }
    task.started(process.toHandle());
    var group = ProcessGroup.ledBy(process.toHandle(), OwnSession.available());
    if (group.isPresent()) {
      // The group and the process itself: until setsid has made the session (a stop right after
      // the start), the group does not exist yet and only the pid reaches the task.
      task.onKill(
          tree -> {
            group.get().signal(ProcessGroup.SIGKILL);
            tree.kill(process.toHandle());
          });
      task.onTerminate(
          () -> {
            group.get().signal(ProcessGroup.SIGTERM);
            process.toHandle().destroy();
          });
    } else {
      task.onKill(tree -> tree.kill(process.toHandle()));
      task.onTerminate(() -> ProcessTree.onDemand().terminate(process.toHandle()));
    }
    task.running(passed);
    process
        .onExit()
        .thenAcceptAsync(
            p -> {
              // Over only when nothing of it lives: what its first process left behind is killed
              // (a background child would keep the task's devices after its claims were let go),
              // and waited for, however long: a process the kernel will not end (stuck in the
              // driver) still holds the device, and its claim must not go to another.
              group.ifPresent(
                  g -> {
                    while (!g.killAndAwaitEmpty(LEFTOVERS)) {
                      LOG.warn(
                          "task {}: processes of its group {} still live {} s after its first"
                              + " process ended and SIGKILL; its claims stay until they are gone",
                          launch.name(),
                          g.id(),
                          LEFTOVERS.toSeconds());
                    }
                  });
              task.finish(new TaskResult.Exited(p.exitValue(), passed));
            },
            ProcessGroup.WAITS);
    return task;
  }
}
