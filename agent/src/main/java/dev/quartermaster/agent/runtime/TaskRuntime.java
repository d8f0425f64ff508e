package dev.quartermaster.agent.runtime;

/**
 * Runs tasks: {@link ExecRuntime} (a local process) or {@link PodmanRuntime} (a container whose
 * devices come from CDI specs). {@link #start} returns at once; the device check and the run
 * continue behind the handle. Problems starting are reported as {@link TaskResult.StartFailed} on
 * the handle, not thrown.
 */
public interface TaskRuntime {

  TaskHandle start(TaskLaunch launch);
}
