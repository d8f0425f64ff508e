package dev.quartermaster.api.claim;

/**
 * The condition types of a ResourceClaim's status: one home for the words the allocator writes and
 * the rest read.
 */
public final class ClaimConditions {
  /**
   * Whether the claim's devices are allocated; when not, the reason and message say why it waits.
   */
  public static final String ALLOCATED = "Allocated";

  private ClaimConditions() {}
}
