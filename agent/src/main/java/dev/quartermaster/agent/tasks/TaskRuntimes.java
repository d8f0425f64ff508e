package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.cdi.CdiResolver;
import dev.quartermaster.agent.runtime.ExecRuntime;
import dev.quartermaster.agent.runtime.NoopRuntime;
import dev.quartermaster.agent.runtime.PodmanOptions;
import dev.quartermaster.agent.runtime.PodmanRuntime;
import dev.quartermaster.agent.runtime.TaskImage;
import dev.quartermaster.agent.runtime.TaskRuntime;
import dev.quartermaster.core.env.Env;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The runtimes a task's {@code spec.runtime} names: {@code exec} (a local process, the default),
 * {@code podman} (a container; its CDI devices come from the agent's CDI directory, which is added
 * to podman's spec directories; podman itself must also read that directory, which it does for
 * {@code /etc/cdi} and {@code /var/run/cdi}), and {@code noop} (runs nothing; for benchmarks).
 */
public final class TaskRuntimes {
  public static final String EXEC = "exec";
  public static final String PODMAN = "podman";
  public static final String NOOP = "noop";

  private final Map<String, TaskRuntime> byName;

  public TaskRuntimes(Env env, Path cdiDir, PodmanOptions podman) {
    var resolver = new CdiResolver(List.of(cdiDir));
    var dirs = new ArrayList<>(podman.cdiSpecDirs());
    if (!dirs.contains(cdiDir)) {
      dirs.add(cdiDir);
    }
    var options = new PodmanOptions(podman.command(), podman.network(), podman.ulimits(), dirs, podman.killTimeout());
    this.byName = Map.of(EXEC, new ExecRuntime(resolver), PODMAN, new PodmanRuntime(env, options),
        NOOP, new NoopRuntime(resolver));
  }

  public Optional<TaskRuntime> get(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The file system a task gets: the host's without an image; an absolute path is a rootfs directory. */
  public static TaskImage image(Optional<String> image) {
    if (image.isEmpty()) {
      return new TaskImage.Host();
    }
    var i = image.get();
    return i.startsWith("/") ? new TaskImage.Rootfs(Path.of(i)) : new TaskImage.Image(i);
  }
}
