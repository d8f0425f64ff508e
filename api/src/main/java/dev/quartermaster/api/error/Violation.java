package dev.quartermaster.api.error;

/**
 * One broken rule: {@code spec.groups[0].replicas: must be >= 0}.
 *
 * @param field the path to the field, as a person would write it
 * @param rule what the field must be
 */
public record Violation(String field, String rule) {

  public Violation {
    // A whole-document violation has the field "", which the wire leaves out: read back, it is "".
    field = field == null ? "" : field;
    rule = rule == null ? "" : rule;
  }

  @Override
  public String toString() {
    return field.isEmpty() ? rule : field + ": " + rule;
  }
}
