package dev.quartermaster.agent.runtime;

import java.util.Objects;

/**
 * How a task ended: it ran and exited, its device check failed (it never ran), or it could not
 * start.
 */
public sealed interface TaskResult {

  /**
   * The task ran (its device check passed) and exited with {@code code} (128+signal when killed).
   */
  record Exited(int code, DeviceCheck.Passed check) implements TaskResult {
    public Exited {
      Objects.requireNonNull(check, "check");
    }
  }

  /** A device node did not open: the task's own command never ran. */
  record DeviceCheckFailed(DeviceCheck.Failed check) implements TaskResult {
    public DeviceCheckFailed {
      Objects.requireNonNull(check, "check");
    }
  }

  /** Nothing ran: e.g. an unresolvable CDI device, podman refused, the program does not exist. */
  record StartFailed(String reason) implements TaskResult {
    public StartFailed {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
