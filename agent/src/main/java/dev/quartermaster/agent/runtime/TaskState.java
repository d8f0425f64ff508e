package dev.quartermaster.agent.runtime;

import java.util.Objects;

/** Where a task is: starting (device check not done), running (check passed), or finished. */
public sealed interface TaskState {

  record Starting() implements TaskState {}

  /** Only reachable through a passed device check: never running with a node it cannot open. */
  record Running(DeviceCheck.Passed check) implements TaskState {
    public Running {
      Objects.requireNonNull(check, "check");
    }
  }

  record Finished(TaskResult result) implements TaskState {
    public Finished {
      Objects.requireNonNull(result, "result");
    }
  }
}
