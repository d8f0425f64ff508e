package dev.quartermaster.control.cluster;

import dev.quartermaster.api.meta.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Building and comparing conditions, so controllers write a status only when it changes. */
public final class Conditions {
  private Conditions() {}

  public static Condition of(String type, boolean status, String reason, String message) {
    return new Condition(
        type,
        status ? Condition.Status.True : Condition.Status.False,
        reason,
        message,
        Optional.empty());
  }

  /** Whether {@code conditions} already says {@code c} (type, status, reason and message). */
  public static boolean has(List<Condition> conditions, Condition c) {
    return Condition.find(conditions, c.type())
        .filter(
            x ->
                x.status() == c.status()
                    && x.reason().equals(c.reason())
                    && x.message().equals(c.message()))
        .isPresent();
  }

  public static List<Condition> set(List<Condition> conditions, Condition c, Instant now) {
    return Condition.set(conditions, c, now);
  }
}
