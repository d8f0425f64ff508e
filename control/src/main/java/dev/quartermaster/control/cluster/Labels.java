package dev.quartermaster.control.cluster;

/** The labels and finalizers the controllers put on objects. */
public final class Labels {
  /** On a task and its claims: the workload it belongs to. */
  public static final String WORKLOAD = "quartermaster.dev/workload";
  /** On a task and its claims: its worker group. */
  public static final String GROUP = "quartermaster.dev/group";
  /** On a claim made from a template: the task it belongs to. */
  public static final String TASK = "quartermaster.dev/task";
  /** On a task: its ordinal in the group. */
  public static final String ORDINAL = "quartermaster.dev/ordinal";

  /** On a workload: its tasks must be gone before it goes. */
  public static final String TASKS_FINALIZER = "quartermaster.dev/tasks";
  /** On a task: its claims must be unprepared on every node before it goes. */
  public static final String CLAIMS_FINALIZER = "quartermaster.dev/claims";

  private Labels() {}
}
