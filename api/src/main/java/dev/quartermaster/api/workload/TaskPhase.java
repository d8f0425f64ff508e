package dev.quartermaster.api.workload;

/**
 * A task's lifecycle: Pending → Scheduled → [Preparing, while its node sets up what it waits for] →
 * Running → Succeeded | Failed. Who moves it, from what to what, is {@link TaskTransitions}.
 */
public enum TaskPhase {
  Pending,
  /** A node is chosen and the task's claims are allocated there. */
  Scheduled,
  /** The node's agent is preparing claims and publishing volumes. */
  Preparing,
  /** The device check passed and the process runs. */
  Running,
  Succeeded,
  Failed;

  public boolean isFinished() {
    return this == Succeeded || this == Failed;
  }
}
