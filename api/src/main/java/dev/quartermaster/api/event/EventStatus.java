package dev.quartermaster.api.event;

/** An event has no observed state: what happened is its spec. */
public record EventStatus() {
  public static final EventStatus EMPTY = new EventStatus();
}
