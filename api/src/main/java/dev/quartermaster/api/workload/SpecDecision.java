package dev.quartermaster.api.workload;

/**
 * The marks a workload controller puts on a task it creates or deletes: the generation of the
 * workload spec the decision was made on. The server applies the decision only while the workload
 * is still at that generation, in the same transaction as the write — so a spec that changed
 * between the controller's read and its write makes the write fail with 409 (and the controller
 * decides again) instead of creating a worker above the new replicas or deleting a wanted one.
 * Writes without the marks (an operator's) are not affected.
 */
public final class SpecDecision {
  /** On a created task: the spec generation that wanted it. Judged at its creation only. */
  public static final String CREATED_AT = "quartermaster.dev/created-at-generation";

  /** Put on a surplus task just before it is deleted: the spec generation that made it surplus. */
  public static final String SCALE_DOWN_AT = "quartermaster.dev/scale-down-at-generation";

  private SpecDecision() {}
}
