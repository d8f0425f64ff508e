package dev.quartermaster.api.queue;

/**
 * @param value higher goes first in its queue (and, later, may preempt lower)
 * @param description what the class is for, for people
 */
public record PriorityClassSpec(int value, String description) {
  public PriorityClassSpec {
    description = description == null ? "" : description;
  }
}
