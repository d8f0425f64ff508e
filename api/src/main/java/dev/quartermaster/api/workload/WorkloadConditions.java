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

  /** Whether the workload is admitted by its queue: no task of it exists before. */
  public static final String ADMITTED = "Admitted";

  /** {@link #ADMITTED}: its cohort's ledger holds it. */
  public static final String ADMITTED_BY_QUEUE = "AdmittedByQueue";

  /** {@link #ADMITTED}: it waits in its queue for quota (or for those ahead of it). */
  public static final String PENDING = "Pending";

  /** {@link #ADMITTED}: its job is over (no task runs or will run again); its quota went back. */
  public static final String FINISHED = "Finished";

  /**
   * {@code Admitted=False}: evicted (preempted, reclaimed, or not started in time), it waits out a
   * backoff before its queue may admit it again.
   */
  public static final String BACKING_OFF = "BackingOff";

  /**
   * {@link #ADMITTED}: it chose victims and waits for them to stop (the reasons of a victim are
   * {@code Preempted} and {@code Reclaimed}, the names of {@code EvictionReason}).
   */
  public static final String PREEMPTING = "Preempting";

  /** {@link #ADMITTED}: the queue it names does not exist. */
  public static final String NO_SUCH_QUEUE = "NoSuchQueue";

  /** {@link #ADMITTED}: the priority class it names does not exist. */
  public static final String NO_SUCH_PRIORITY_CLASS = "NoSuchPriorityClass";

  /**
   * Whether its job is over: every task has ended for good. True from when the controller saw it
   * so; with {@code spec.ttlSecondsAfterFinished} the workload is deleted that long after.
   */
  public static final String COMPLETE = "Complete";

  /** {@link #COMPLETE}: every task has ended and none is to be replaced. */
  public static final String JOB_OVER = "JobOver";

  private WorkloadConditions() {}
}
