package dev.quartermaster.api.queue;

/** A priority class has no observed state. */
public record PriorityClassStatus() {
  public static final PriorityClassStatus EMPTY = new PriorityClassStatus();
}
