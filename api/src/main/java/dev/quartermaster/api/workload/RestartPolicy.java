package dev.quartermaster.api.workload;

/** What the workload controller does when a task ends. */
public enum RestartPolicy {
  /** Replace tasks that fail; a succeeded task stays done. */
  OnFailure,
  /** Replace tasks whenever they end. */
  Always,
  /** Never replace; the group finishes with its tasks. */
  Never;

  /** Whether a task that ended in {@code phase} is replaced by a new one of its slot. */
  public boolean replaces(TaskPhase phase) {
    return switch (this) {
      case OnFailure -> phase == TaskPhase.Failed;
      case Always -> phase.isFinished();
      case Never -> false;
    };
  }

  /** Whether a task in {@code phase} has ended for good: finished, and not to be replaced. */
  public boolean endedForGood(TaskPhase phase) {
    return phase.isFinished() && !replaces(phase);
  }
}
