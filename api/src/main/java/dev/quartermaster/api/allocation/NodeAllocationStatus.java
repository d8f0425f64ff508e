package dev.quartermaster.api.allocation;

/** A node allocation has no observed state: the record is its spec. */
public record NodeAllocationStatus() {
  public static final NodeAllocationStatus EMPTY = new NodeAllocationStatus();
}
