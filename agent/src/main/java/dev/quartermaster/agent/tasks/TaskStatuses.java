package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.runtime.DeviceCheck;
import dev.quartermaster.agent.runtime.TaskResult;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The task statuses the agent writes, built from the current one (pure functions). */
final class TaskStatuses {
  private TaskStatuses() {}

  static TaskStatus phase(TaskStatus s, TaskPhase phase, String reason, String message) {
    return new TaskStatus(phase, reason, message, s.node(), s.deviceCheck(), s.exitCode(), s.startedAt(),
        s.finishedAt(), s.conditions());
  }

  /** Running: only ever with a passed device check. */
  static TaskStatus running(TaskStatus s, DeviceCheck.Passed check, Instant now) {
    // A task without devices has nothing to open: say so rather than "opened 0 device nodes: ".
    var opened = check.opened().isEmpty() ? "no device nodes to open"
        : "opened " + check.opened().size() + " device nodes: " + String.join(", ", check.opened());
    return new TaskStatus(TaskPhase.Running, "DeviceCheckPassed", opened, s.node(), Optional.of(passed(check)), Optional.empty(),
        Optional.of(s.startedAt().orElse(now)), Optional.empty(), s.conditions());
  }

  /** Succeeded (exit 0) or Failed, with why, the exit code where there is one, and the device check. */
  static TaskStatus finished(TaskStatus s, TaskResult result, Instant now) {
    return switch (result) {
      case TaskResult.Exited e -> new TaskStatus(e.code() == 0 ? TaskPhase.Succeeded : TaskPhase.Failed,
          e.code() == 0 ? "Completed" : "Error", "exited with code " + e.code(), s.node(),
          Optional.of(passed(e.check())), Optional.of(e.code()), Optional.of(s.startedAt().orElse(now)),
          Optional.of(now), s.conditions());
      case TaskResult.DeviceCheckFailed f -> new TaskStatus(TaskPhase.Failed, "DeviceCheckFailed",
          "device check failed: " + f.check().message(), s.node(),
          Optional.of(new dev.quartermaster.api.workload.DeviceCheck(false, f.check().opened(),
              Optional.of(f.check().message()))), Optional.empty(), s.startedAt(), Optional.of(now), s.conditions());
      case TaskResult.StartFailed f -> failed(s, "StartFailed", f.reason(), now);
    };
  }

  /** {@code s} with {@code condition} set (its transition time kept while its status is unchanged). */
  static TaskStatus withCondition(TaskStatus s, Condition condition, Instant now) {
    return new TaskStatus(s.phase(), s.reason(), s.message(), s.node(), s.deviceCheck(), s.exitCode(), s.startedAt(),
        s.finishedAt(), Condition.set(s.conditions(), condition, now));
  }

  static TaskStatus failed(TaskStatus s, String reason, String message, Instant now) {
    return new TaskStatus(TaskPhase.Failed, reason, message, s.node(), s.deviceCheck(), Optional.empty(),
        s.startedAt(), Optional.of(now), s.conditions());
  }

  private static dev.quartermaster.api.workload.DeviceCheck passed(DeviceCheck.Passed check) {
    return new dev.quartermaster.api.workload.DeviceCheck(true, List.copyOf(check.opened()), Optional.empty());
  }
}
