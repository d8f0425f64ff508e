package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.cdi.CdiResolver;
import dev.quartermaster.agent.host.FileRunRecords;
import dev.quartermaster.agent.host.RunRecords;
import dev.quartermaster.agent.host.TaskHost;
import dev.quartermaster.agent.runtime.ExecRuntime;
import dev.quartermaster.agent.runtime.NoopRuntime;
import dev.quartermaster.agent.runtime.PodmanOptions;
import dev.quartermaster.agent.runtime.PodmanRuntime;
import dev.quartermaster.agent.runtime.RuntimeTask;
import dev.quartermaster.agent.runtime.TaskImage;
import dev.quartermaster.agent.runtime.TaskResult;
import dev.quartermaster.agent.runtime.TaskRuntime;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.files.OwnerOnly;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtimes a task's {@code spec.runtime} names: {@code exec} (a local process, the default),
 * {@code podman} (a container; its CDI devices come from the agent's CDI directory, which is added
 * to podman's spec directories; podman itself must also read that directory, which it does for
 * {@code /etc/cdi} and {@code /var/run/cdi}), and {@code noop} (runs nothing; for benchmarks). This
 * is the machine's {@link TaskHost}: its run records are one file ({@code runs.log}) beside the
 * task logs.
 */
public final class TaskRuntimes implements TaskHost {
  private static final Logger LOG = LoggerFactory.getLogger(TaskRuntimes.class);

  public static final String EXEC = "exec";
  public static final String PODMAN = "podman";
  public static final String NOOP = "noop";

  private final Map<String, TaskRuntime> byName;
  private final RunRecords records;

  /**
   * @param runDir where run records are kept
   */
  public TaskRuntimes(Env env, Path cdiDir, PodmanOptions podman, Path runDir) {
    this.records = new FileRunRecords(runDir, podman.command());
    var resolver = new CdiResolver(List.of(cdiDir));
    var dirs = new ArrayList<>(podman.cdiSpecDirs());
    if (!dirs.contains(cdiDir)) {
      dirs.add(cdiDir);
    }
    var options =
        new PodmanOptions(
            podman.command(), podman.network(), podman.ulimits(), dirs, podman.killTimeout());
    this.byName =
        Map.of(
            EXEC,
            new ExecRuntime(resolver),
            PODMAN,
            new PodmanRuntime(env, options),
            NOOP,
            new NoopRuntime(resolver));
  }

  @Override
  public Optional<TaskRuntime> runtime(String name) {
    return Optional.ofNullable(byName.get(name)).map(TaskRuntimes::withOutputDir);
  }

  @Override
  public RunRecords records() {
    return records;
  }

  /**
   * The runtime, creating the output file's directory first (a start that cannot is a failed start)
   * and keeping an earlier attempt's output: an incarnation runs at most once on a node, so an
   * existing log is an earlier attempt's ({@code qm logs --previous}).
   */
  private static TaskRuntime withOutputDir(TaskRuntime runtime) {
    return launch -> {
      try {
        // Task output carries the task's environment and results: owner-only, like the rest of the
        // state.
        OwnerOnly.directory(launch.output().toAbsolutePath().getParent())
            .ifPresent(
                t -> LOG.warn("task output directory was open to other users; tightened {}", t));
      } catch (IOException e) {
        var failed = new RuntimeTask(launch.name(), launch.output());
        failed.finish(
            new TaskResult.StartFailed(
                "cannot create " + launch.output().getParent() + ": " + e.getMessage()));
        return failed;
      }
      try {
        TaskLogs.keepPrevious(launch.output());
      } catch (IOException e) {
        LOG.warn(
            "task {}: cannot keep the previous attempt's output; it is overwritten",
            launch.name(),
            e);
      }
      try {
        OwnerOnly.createFile(launch.output());
      } catch (IOException e) {
        var failed = new RuntimeTask(launch.name(), launch.output());
        failed.finish(
            new TaskResult.StartFailed("cannot create " + launch.output() + ": " + e.getMessage()));
        return failed;
      }
      return runtime.start(launch);
    };
  }

  /**
   * The file system a task gets: the host's without an image; an absolute path is a rootfs
   * directory.
   */
  public static TaskImage image(Optional<String> image) {
    if (image.isEmpty()) {
      return new TaskImage.Host();
    }
    var i = image.get();
    return i.startsWith("/") ? new TaskImage.Rootfs(Path.of(i)) : new TaskImage.Image(i);
  }
}
