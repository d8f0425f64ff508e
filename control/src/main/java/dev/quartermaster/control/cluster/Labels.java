package dev.quartermaster.control.cluster;

/** The labels and finalizers the controllers put on objects. */
public final class Labels {
  /** On a task, its claims and its slot's template volumes: the workload it belongs to. */
  public static final String WORKLOAD = "quartermaster.dev/workload";

  /** On a task, its claims and its slot's template volumes: its worker group. */
  public static final String GROUP = "quartermaster.dev/group";

  /** On a claim made from a template: the task it belongs to. */
  public static final String TASK = "quartermaster.dev/task";

  /** On a task, and on a volume made from a claim template: the slot's ordinal in the group. */
  public static final String ORDINAL = "quartermaster.dev/ordinal";

  /** On a workload: its tasks must be gone before it goes. */
  public static final String TASKS_FINALIZER = "quartermaster.dev/tasks";

  /** On a task: its claims must be unprepared on every node before it goes. */
  public static final String CLAIMS_FINALIZER = "quartermaster.dev/claims";

  private Labels() {}
}
