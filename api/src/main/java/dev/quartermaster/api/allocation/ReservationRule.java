package dev.quartermaster.api.allocation;

/**
 * The rule a refused change of a gang reservation breaks; see {@link
 * ReservationTransitions#refusal}. Each names the field of the reservation it is about.
 */
public enum ReservationRule {
  /** A reservation added already {@code Held}: nothing checked its devices against the records. */
  WRITTEN_PROPOSED(
      "phase",
      "a reservation is written Proposed; it becomes Held only by a write the store checks against"
          + " the records"),
  /** Its members, nodes, claims, devices, workload or generation changed. */
  ONE_DECISION(
      "members", "a reservation is one decision and does not change: remove it and write another"),
  /** From {@code Held} back to {@code Proposed}. */
  HELD_UNTIL_REMOVED("phase", "a held reservation stays held until it is removed");

  private final String field;
  private final String text;

  ReservationRule(String field, String text) {
    this.field = field;
    this.text = text;
  }

  /** The reservation's field the rule is about. */
  public String field() {
    return field;
  }

  public String text() {
    return text;
  }
}
