package dev.quartermaster.api.event;

import dev.quartermaster.api.meta.ApiObject;

/**
 * Where a component reports what it decided. Recording never blocks on the store and never fails:
 * events are for people, and a decision must not wait for its own report.
 */
@FunctionalInterface
public interface EventRecorder {
  /** Records nothing: for components run without an event log (unit tests, benches). */
  EventRecorder NONE = (involved, type, reason, message) -> {};

  void record(InvolvedObject involved, EventType type, String reason, String message);

  default void normal(ApiObject involved, String reason, String message) {
    record(InvolvedObject.of(involved), EventType.Normal, reason, message);
  }

  default void warning(ApiObject involved, String reason, String message) {
    record(InvolvedObject.of(involved), EventType.Warning, reason, message);
  }
}
