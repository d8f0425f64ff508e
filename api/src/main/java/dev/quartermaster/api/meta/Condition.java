package dev.quartermaster.api.meta;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One observed fact about an object, e.g. {@code DevicesReady=False reason=ControlNodeMissing
 * message="missing /dev/nvidia-uvm"}.
 *
 * @param reason a CamelCase word a program can match on
 * @param message what a person needs to know, naming the exact thing at fault
 */
public record Condition(
    String type, Status status, String reason, String message, Optional<Instant> lastTransition) {

  public enum Status {
    True,
    False,
    Unknown
  }

  public Condition {
    type = type == null ? "" : type;
    status = status == null ? Status.Unknown : status;
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
    lastTransition = lastTransition == null ? Optional.empty() : lastTransition;
  }

  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean isTrue() {
    return status == Status.True;
  }

  /** The condition of {@code type} in {@code conditions}, if any. */
  public static Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions.stream().filter(c -> c.type.equals(type)).findFirst();
  }

  /**
   * {@code conditions} with {@code next} replacing the one of its type; the transition time is kept
   * when the status did not change, so "since when" stays true.
   */
  public static List<Condition> set(List<Condition> conditions, Condition next, Instant now) {
    var previous = find(conditions, next.type);
    var at =
        previous
            .filter(p -> p.status == next.status)
            .flatMap(Condition::lastTransition)
            .orElse(now);
    var updated = new Condition(next.type, next.status, next.reason, next.message, Optional.of(at));
    var out = new java.util.ArrayList<Condition>();
    for (var c : conditions) {
      if (!c.type.equals(next.type)) {
        out.add(c);
      }
    }
    out.add(updated);
    out.sort(java.util.Comparator.comparing(Condition::type));
    return List.copyOf(out);
  }
}
