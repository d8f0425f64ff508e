package dev.quartermaster.api.workload;

/** Who writes a task's phase: each may make only its own moves of {@link TaskTransitions}. */
public enum PhaseWriter {
  /** The scheduler, and the allocator when the claims it allocates are all of a task's. */
  SCHEDULER("the scheduler"),
  /** The agent of the task's node: it prepares, starts and follows the process. */
  AGENT("the agent"),
  /** The node lifecycle: a task on a node that stopped heartbeating or was fenced ends Failed. */
  NODE_LIFECYCLE("the node lifecycle"),
  /** The workload controller's restarts: a finished task says it waits to be replaced. */
  RESTARTS("the workload's restarts"),
  /** The deadlines: a task still running at its {@code activeDeadlineSeconds} ends Failed. */
  DEADLINES("the deadlines");

  private final String text;

  PhaseWriter(String text) {
    this.text = text;
  }

  /** The writer in words, for a refusal. */
  public String text() {
    return text;
  }
}
