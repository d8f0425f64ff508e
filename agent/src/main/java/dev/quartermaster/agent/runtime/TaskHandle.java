package dev.quartermaster.agent.runtime;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/** A started task: its state, its output file, its end, and a way to stop it. */
public interface TaskHandle {

  String name();

  TaskState state();

  /** The file with the task's stdout and stderr (for podman also the device check's lines). */
  Path output();

  /** Completes when the device check is done (passed or failed), or with a failure if nothing ran. */
  CompletableFuture<DeviceCheck> deviceCheck();

  /** Completes when the task has ended. */
  CompletableFuture<TaskResult> result();

  /** Kills the task (SIGKILL); idempotent. */
  void kill();
}
