package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.runtime.DeviceCheck;
import dev.quartermaster.agent.runtime.TaskResult;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.PhaseWriter;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTransitions;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The task statuses the agent writes, in its words, each through its move of {@link
 * TaskTransitions} (pure functions).
 */
final class TaskStatuses {
  private TaskStatuses() {}

  /** Preparing, saying what the task waits for. */
  static TaskStatus preparing(TaskStatus s, String reason, String message) {
    return TaskTransitions.preparing(s, reason, message);
  }

  /** Running: only ever with a passed device check. */
  static TaskStatus running(TaskStatus s, DeviceCheck.Passed check, Instant now) {
    // A task without devices has nothing to open: say so rather than "opened 0 device nodes: ".
    var opened =
        check.opened().isEmpty()
            ? "no device nodes to open"
            : "opened "
                + check.opened().size()
                + " device nodes: "
                + String.join(", ", check.opened());
    return TaskTransitions.running(s, passed(check), "DeviceCheckPassed", opened, now);
  }

  /**
   * Succeeded (exit 0) or Failed, with why, the exit code where there is one, and the device check.
   */
  static TaskStatus finished(TaskStatus s, TaskResult result, Instant now) {
    return switch (result) {
      case TaskResult.Exited e ->
          TaskTransitions.exited(
              s,
              e.code(),
              passed(e.check()),
              e.code() == 0 ? "Completed" : "Error",
              "exited with code " + e.code(),
              now);
      case TaskResult.DeviceCheckFailed f ->
          TaskTransitions.failed(
              s,
              Optional.of(
                  new dev.quartermaster.api.workload.DeviceCheck(
                      false, f.check().opened(), Optional.of(f.check().message()))),
              "DeviceCheckFailed",
              "device check failed: " + f.check().message(),
              now);
      case TaskResult.StartFailed f -> failed(s, "StartFailed", f.reason(), now);
    };
  }

  /**
   * {@code s} with {@code condition} set (its transition time kept while its status is unchanged).
   */
  static TaskStatus withCondition(TaskStatus s, Condition condition, Instant now) {
    return TaskTransitions.withConditions(
        PhaseWriter.AGENT, s, Condition.set(s.conditions(), condition, now));
  }

  /** Failed without an exit code, the device check as it was. */
  static TaskStatus failed(TaskStatus s, String reason, String message, Instant now) {
    return TaskTransitions.failed(s, s.deviceCheck(), reason, message, now);
  }

  private static dev.quartermaster.api.workload.DeviceCheck passed(DeviceCheck.Passed check) {
    return new dev.quartermaster.api.workload.DeviceCheck(
        true, List.copyOf(check.opened()), Optional.empty());
  }
}
