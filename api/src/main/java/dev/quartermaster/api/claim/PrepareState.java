package dev.quartermaster.api.claim;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The agent's view of one claim on its node.
 *
 * @param reason why it is not prepared yet, e.g. "device gpu-0 is held by claim 7f3c…
 *     (train-w-1-gpu)"
 * @param cdiDevices the fully qualified CDI device names a container gets
 */
public record PrepareState(
    Phase phase, String reason, List<String> cdiDevices, Optional<Instant> updatedAt) {

  public enum Phase {
    /** Waiting: a device is held by another claim, or a device node is missing. Retried. */
    Pending,
    Prepared,
    /** Failed for a reason that retrying will not fix. */
    Failed,
    Unprepared
  }

  public PrepareState {
    phase = phase == null ? Phase.Pending : phase;
    reason = reason == null ? "" : reason;
    cdiDevices = cdiDevices == null ? List.of() : List.copyOf(cdiDevices);
    updatedAt = updatedAt == null ? Optional.empty() : updatedAt;
  }
}
