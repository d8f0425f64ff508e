package dev.quartermaster.api.workload;

/**
 * The condition types of a Task's status: one home for the words the controllers write and the rest
 * read.
 */
public final class TaskConditions {
  /** On a finished task that waits, backing off, to be replaced by its workload. */
  public static final String RESTARTING = "Restarting";

  private TaskConditions() {}
}
