package dev.quartermaster.api.workload;

import dev.quartermaster.api.meta.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * @param reason why the task is in its phase, e.g. "waiting for claim train-w-0-gpu to be prepared"
 * @param deviceCheck the result of opening every device node the task was given, before it ran
 */
public record TaskStatus(
    TaskPhase phase,
    String reason,
    String message,
    Optional<String> node,
    Optional<DeviceCheck> deviceCheck,
    Optional<Integer> exitCode,
    Optional<Instant> startedAt,
    Optional<Instant> finishedAt,
    List<Condition> conditions) {
  public static final TaskStatus EMPTY =
      new TaskStatus(
          TaskPhase.Pending,
          "",
          "",
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          List.of());

  public TaskStatus {
    phase = phase == null ? TaskPhase.Pending : phase;
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
    node = node == null ? Optional.empty() : node;
    deviceCheck = deviceCheck == null ? Optional.empty() : deviceCheck;
    exitCode = exitCode == null ? Optional.empty() : exitCode;
    startedAt = startedAt == null ? Optional.empty() : startedAt;
    finishedAt = finishedAt == null ? Optional.empty() : finishedAt;
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }
}
