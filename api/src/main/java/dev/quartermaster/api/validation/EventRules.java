package dev.quartermaster.api.validation;

import dev.quartermaster.api.event.EventLog;
import dev.quartermaster.api.event.EventSpec;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.Kinds;
import java.util.regex.Pattern;

/**
 * Rules for an event: it names a real kind and a valid name, a CamelCase reason, and bounded text.
 */
final class EventRules {
  private static final Pattern REASON = Pattern.compile("[A-Z][A-Za-z0-9]{0,63}");
  private static final Pattern SOURCE =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(/[a-z0-9]([-a-z0-9]*[a-z0-9])?)?");

  private EventRules() {}

  static void spec(EventSpec s, Violations v) {
    v.check(
        Kinds.byName(s.involved().kind()).isPresent()
            || s.involved().kind().equals(InvolvedObject.CONTROLLERS.kind()),
        "spec.involved.kind",
        "must be a kind the API serves (Task, ResourceClaim, Node, ...) or ControlPlane");
    v.dnsLabel("spec.involved.name", s.involved().name());
    v.check(
        s.involved().uid().length() <= 64 && s.involved().uid().matches("[0-9a-zA-Z-]*"),
        "spec.involved.uid",
        "must be an object's uid (letters, digits and '-', at most 64)");
    v.check(
        REASON.matcher(s.reason()).matches(),
        "spec.reason",
        "must be a CamelCase word of letters and digits, at most 64 characters (Scheduled)");
    v.check(
        s.source().length() <= 128 && SOURCE.matcher(s.source()).matches(),
        "spec.source",
        "must be a component name, or component/node (scheduler, agent/node-1)");
    v.check(
        s.message().length() <= EventLog.MAX_MESSAGE,
        "spec.message",
        "must be at most " + EventLog.MAX_MESSAGE + " characters");
    StatusRules.message("spec.message", s.message(), v);
    v.check(s.count() >= 1, "spec.count", "must be >= 1");
    v.check(
        !s.lastSeen().isBefore(s.firstSeen()),
        "spec.lastSeen",
        "must not be before spec.firstSeen");
  }
}
