package dev.quartermaster.agent.runtime;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A started task: its state, its output file, its end, and a way to stop it. */
public interface TaskHandle {

  String name();

  TaskState state();

  /** The file with the task's stdout and stderr (for podman also the device check's lines). */
  Path output();

  /**
   * Completes when the device check is done (passed or failed), or with a failure if nothing ran.
   */
  CompletableFuture<DeviceCheck> deviceCheck();

  /** Completes when the task has ended. */
  CompletableFuture<TaskResult> result();

  /**
   * The local process behind the task, once started (exec: the task itself; podman: {@code podman
   * run}); empty for runtimes without one. The agent records it so that after a crash it can find
   * and stop a task it can no longer follow.
   */
  Optional<ProcessHandle> process();

  /**
   * The container behind the task, for runtimes that run one (podman): a container outlives the
   * {@code podman run} that started it, so a restarted agent stops it by name.
   */
  default Optional<String> container() {
    return Optional.empty();
  }

  /**
   * Asks the task to stop (SIGTERM): it may end by itself within its grace period; whoever calls
   * this kills it ({@link #kill()}) once the period is over. Idempotent.
   */
  default void terminate() {
    kill();
  }

  /** Kills the task (SIGKILL); idempotent. */
  default void kill() {
    kill(ProcessTree.onDemand());
  }

  /**
   * As {@link #kill()}, one of a batch that shares {@code tree} (read at most once for them all).
   */
  void kill(ProcessTree tree);
}
