package dev.quartermaster.api.workload;

/**
 * The condition types of a Workload's status and their reasons: one home for the words the workload
 * controller writes and describe, the dashboard and the tests read.
 */
public final class WorkloadConditions {
  /** Whether the workload's claims can be allocated. */
  public static final String SCHEDULABLE = "Schedulable";

  /** Whether every wanted task could be created. */
  public static final String TASKS_CREATED = "TasksCreated";

  /** {@link #TASKS_CREATED}: every wanted task exists or is being replaced. */
  public static final String CREATED = "Created";

  /**
   * {@link #TASKS_CREATED}: a task or volume name is held by an object this workload does not own.
   */
  public static final String NAME_TAKEN = "NameTaken";

  /** {@link #TASKS_CREATED}: the store refused a task or volume the spec makes. */
  public static final String INVALID = "Invalid";

  /** {@link #SCHEDULABLE}: a claim template names a device class that does not exist. */
  public static final String NO_SUCH_DEVICE_CLASS = "NoSuchDeviceClass";

  private WorkloadConditions() {}
}
