package dev.quartermaster.api.workload;

/** What the workload controller does when a task ends. */
public enum RestartPolicy {
  /** Replace tasks that fail; a succeeded task stays done. */
  OnFailure,
  /** Replace tasks whenever they end. */
  Always,
  /** Never replace; the group finishes with its tasks. */
  Never
}
