package dev.quartermaster.agent.runtime;

import java.util.List;
import java.util.Objects;

/**
 * The result of opening, read-only, every device node a task was given, before it counts as running
 * (inside the container for podman). Recorded in the task's status.
 *
 * <p>The exec runtime reports host paths (what it opened); podman reports container paths.
 */
public sealed interface DeviceCheck {

  /** Every node opened; {@code opened} lists them in order. */
  record Passed(List<String> opened) implements DeviceCheck {
    public Passed {
      opened = List.copyOf(opened);
    }
  }

  /**
   * The first node that did not open: its path and the error, e.g. {@code /dev/nvidia-uvm} and
   * {@code Operation not permitted}; {@code detail} is the full text where the error came from a
   * shell; {@code opened} lists those that opened before it.
   */
  record Failed(String path, String error, String detail, List<String> opened)
      implements DeviceCheck {
    public Failed {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(error, "error");
      Objects.requireNonNull(detail, "detail");
      opened = List.copyOf(opened);
    }

    /** {@code /dev/nvidia-uvm: Operation not permitted}. */
    public String message() {
      return path + ": " + error;
    }
  }

  /** The check never ran, because nothing started (the task's result says why). */
  record NotRun(String reason) implements DeviceCheck {
    public NotRun {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
