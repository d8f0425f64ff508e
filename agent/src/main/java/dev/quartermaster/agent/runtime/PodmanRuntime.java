package dev.quartermaster.agent.runtime;

import dev.quartermaster.agent.cdi.CdiDeviceNode;
import dev.quartermaster.agent.cdi.CdiResolver;
import dev.quartermaster.agent.cdi.DeviceVariables;
import dev.quartermaster.core.env.Env;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Runs a task in a container: {@code podman run --rm --network none --device <cdi-name>... } with a
 * rootfs directory or an image. The devices come from the claims' CDI specs, so runc's device
 * cgroup allows exactly the nodes those specs list: a node left out of a spec really fails
 * ("Operation not permitted").
 *
 * <p>Before the task counts as running, the container opens every node its CDI devices list,
 * <em>inside the container</em> ({@link DeviceCheckScript} runs first and then {@code exec}s the
 * command). The runtime reads the check's lines from the container's output, records the result,
 * and only then moves the task to Running; a failure ends the task with the path and the error, and
 * the command never runs. Output (check lines included) goes to the launch's output file.
 *
 * <p>Podman applies the CDI specs' environment itself; what CDI cannot compose over several claims
 * (the GPU list, the claim uids, {@code NVIDIA_VISIBLE_DEVICES}) the runtime passes as {@code
 * --env}, built from exactly the devices it injects ({@link DeviceVariables}).
 *
 * <p>An I/O edge: reading the container's output blocks, so it runs on {@link Env#execute}
 * (production's virtual threads). Podman must find the specs: they must be in {@link
 * PodmanOptions#cdiSpecDirs()}, which must be where this podman reads them.
 */
public final class PodmanRuntime implements TaskRuntime {
  private static final int TAIL_LINES = 20;

  private final Env env;
  private final PodmanOptions options;
  private final CdiResolver resolver;

  public PodmanRuntime(Env env, PodmanOptions options) {
    this.env = Objects.requireNonNull(env, "env");
    this.options = Objects.requireNonNull(options, "options");
    this.resolver = new CdiResolver(options.cdiSpecDirs());
  }

  @Override
  public TaskHandle start(TaskLaunch launch) {
    var task = new RuntimeTask(launch.name(), launch.output());
    if (launch.image() instanceof TaskImage.Host) {
      task.finish(
          new TaskResult.StartFailed("the podman runtime needs a rootfs directory or an image"));
      return task;
    }
    List<String> paths;
    List<String> composed;
    try {
      var edits = resolver.resolve(launch.cdiDevices());
      paths = edits.deviceNodes().stream().map(CdiDeviceNode::path).distinct().toList();
      composed = edits.composedEnv();
    } catch (CdiResolver.UnresolvableException e) {
      task.finish(new TaskResult.StartFailed(e.getMessage()));
      return task;
    }
    var unsafe = paths.stream().filter(p -> !DeviceCheckScript.safePath(p)).toList();
    if (!unsafe.isEmpty()) {
      task.finish(
          new TaskResult.StartFailed("device paths the check cannot pass to a shell: " + unsafe));
      return task;
    }
    var container =
        "qm-" + launch.name() + "-" + Long.toHexString(env.random().nextLong() & 0xffff_ffffL);
    var podman = options.command().getFirst();
    if (OwnSession.resolve(podman, System.getenv().getOrDefault("PATH", "")).isEmpty()) {
      task.finish(new TaskResult.StartFailed("cannot run " + podman + ": no such executable file"));
      return task;
    }
    Process process;
    try {
      process =
          new ProcessBuilder(OwnSession.of(runArgs(launch, container, paths, composed)))
              .redirectErrorStream(true)
              .redirectInput(Redirect.from(new java.io.File("/dev/null")))
              .start();
    } catch (IOException e) {
      task.finish(
          new TaskResult.StartFailed(
              "cannot run " + options.command().getFirst() + ": " + e.getMessage()));
      return task;
    }
    task.started(process.toHandle());
    task.inContainer(container);
    task.onKill(tree -> kill(container, process));
    task.onTerminate(
        () -> {
          if (container.isEmpty() || !signal(container, "TERM")) {
            process.destroy(); // podman run passes SIGTERM on to the container
          }
        });
    env.execute(() -> follow(process, launch, task));
    return task;
  }

  private List<String> runArgs(
      TaskLaunch launch, String container, List<String> paths, List<String> composed) {
    var args = new ArrayList<>(options.command());
    args.addAll(List.of("run", "--rm", "--name", container, "--network", options.network()));
    options.ulimits().forEach(u -> args.addAll(List.of("--ulimit", u)));
    launch.cdiDevices().forEach(d -> args.addAll(List.of("--device", d)));
    for (var m : launch.mounts()) {
      args.addAll(
          List.of(
              "--volume", m.hostPath() + ":" + m.containerPath() + (m.readOnly() ? ":ro" : "")));
    }
    launch.env().forEach((k, v) -> args.addAll(List.of("--env", k + "=" + v)));
    // After the task's own (a later --env wins); podman applies the CDI edits after both.
    composed.forEach(e -> args.addAll(List.of("--env", e)));
    switch (launch.image()) {
      case TaskImage.Rootfs r ->
          args.addAll(List.of("--rootfs", r.dir().toAbsolutePath().toString()));
      case TaskImage.Image i -> args.add(i.reference());
      case TaskImage.Host h -> throw new IllegalStateException("checked in start");
    }
    args.addAll(DeviceCheckScript.wrap(paths, launch.command()));
    return args;
  }

  /** Reads the check's lines, records the check, then copies the rest and records the exit. */
  private void follow(Process process, TaskLaunch launch, RuntimeTask task) {
    var opened = new ArrayList<String>();
    var tail = new ArrayDeque<String>();
    DeviceCheck.Failed failed = null;
    DeviceCheck.Passed passed = null;
    try (var in = process.getInputStream();
        var out =
            Files.newOutputStream(
                launch.output(),
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND)) { // appended: rotation truncates it
      while (passed == null) {
        var line = readLine(in, out);
        if (line == null) {
          break;
        }
        var parsed = DeviceCheckScript.parse(line);
        if (parsed.isEmpty()) {
          tail.addLast(line);
          if (tail.size() > TAIL_LINES) {
            tail.removeFirst();
          }
          continue;
        }
        switch (parsed.get()) {
          case DeviceCheckScript.Line.Opened o -> opened.add(o.path());
          case DeviceCheckScript.Line.Failed f ->
              failed = new DeviceCheck.Failed(f.path(), f.error(), f.detail(), opened);
          case DeviceCheckScript.Line.AllOpened a -> {
            passed = new DeviceCheck.Passed(opened);
            task.running(passed);
          }
        }
      }
      if (passed != null) {
        in.transferTo(out);
      }
    } catch (IOException e) {
      tail.addLast("reading the container's output failed: " + e.getMessage());
    }
    int code;
    try {
      code = process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill("", process);
      task.finish(new TaskResult.StartFailed("interrupted while following the container"));
      return;
    }
    if (passed != null) {
      task.finish(new TaskResult.Exited(code, passed));
    } else if (failed != null) {
      task.finish(new TaskResult.DeviceCheckFailed(failed));
    } else {
      task.finish(
          new TaskResult.StartFailed(
              "podman exited "
                  + code
                  + " before the device check ran: "
                  + String.join(" | ", tail)));
    }
  }

  /**
   * One line (without its newline), copied to {@code out} whole (one write per line, not per byte);
   * null at the end of the stream. {@code in} is buffered (the JDK's process streams are).
   */
  private static String readLine(InputStream in, OutputStream out) throws IOException {
    var line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      line.write(b);
      if (b == '\n') {
        break;
      }
    }
    if (line.size() == 0) {
      return null;
    }
    line.writeTo(out);
    var text = line.toString(StandardCharsets.UTF_8);
    return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
  }

  /** {@code podman kill --signal KILL} (a container's PID 1 ignores SIGTERM without a handler). */
  private void kill(String container, Process run) {
    if (!container.isEmpty() && signal(container, "KILL")) {
      return;
    }
    // The container is not there (yet): SIGTERM lets podman run clean up what it started.
    run.destroy();
  }

  /** {@code podman kill --signal <signal>}; whether podman said it was sent. */
  private boolean signal(String container, String signal) {
    var args = new ArrayList<>(options.command());
    args.addAll(List.of("kill", "--signal", signal, container));
    try {
      var killer =
          new ProcessBuilder(args)
              .redirectErrorStream(true)
              .redirectOutput(Redirect.DISCARD)
              .start();
      if (killer.waitFor(options.killTimeout().toMillis(), TimeUnit.MILLISECONDS)
          && killer.exitValue() == 0) {
        return true;
      }
      killer.destroyForcibly();
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }
}
