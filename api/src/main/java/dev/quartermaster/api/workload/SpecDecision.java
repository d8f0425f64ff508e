package dev.quartermaster.api.workload;

/**
 * The marks a workload controller puts on a task it creates or deletes (and the allocator on a
 * gang's members it places): the generation of the workload spec the decision was made on. The
 * server applies the decision only while the workload is still at that generation, in the same
 * transaction as the write — so a spec that changed between the controller's read and its write
 * makes the write fail with 409 (and the controller decides again) instead of creating a worker
 * above the new replicas or deleting a wanted one. Writes without the marks (an operator's) are not
 * affected.
 */
public final class SpecDecision {
  /** On a created task: the spec generation that wanted it. Judged at its creation only. */
  public static final String CREATED_AT = "quartermaster.dev/created-at-generation";

  /** Put on a surplus task just before it is deleted: the spec generation that made it surplus. */
  public static final String SCALE_DOWN_AT = "quartermaster.dev/scale-down-at-generation";

  /**
   * Put by the allocator on each member of a gang it places, in the transaction that pins them: the
   * spec generation whose {@code minMember} and topology the placement was decided on (a gang
   * scaled up meanwhile would otherwise hold devices for fewer members than it needs). Judged by
   * the write that sets it.
   */
  public static final String GANG_PLACED_AT = "quartermaster.dev/gang-placed-at-generation";

  private SpecDecision() {}
}
