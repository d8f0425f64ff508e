package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.runtime.TaskHandle;
import dev.quartermaster.agent.runtime.TaskState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A process this agent started, for the task incarnation {@code uid}, with the claims (name and
 * uid) it was started with: those stay prepared until it is gone. {@code deviceLoss}: why this
 * agent killed it for a lost device node (onDeviceLoss: Stop), for its final status.
 */
record TaskRun(
    String uid,
    TaskHandle handle,
    List<ClaimRef> claims,
    Optional<String> deviceLoss,
    Instant startedAt,
    String starting) {

  TaskRun stoppedFor(String why) {
    return new TaskRun(uid, handle, claims, Optional.of(why), startedAt, starting);
  }

  /**
   * Whether its process may still run: until the handle says it finished, its claims are in use.
   */
  boolean mayRun() {
    return !(handle.state() instanceof TaskState.Finished);
  }
}
