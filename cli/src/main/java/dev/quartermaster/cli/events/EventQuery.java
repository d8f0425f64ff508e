package dev.quartermaster.cli.events;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.event.EventLog;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.Kinds;
import java.util.List;
import java.util.Map;

/**
 * The events about one object, oldest news first, as {@code describe} and {@code get events --for}
 * show them.
 */
public final class EventQuery {
  private EventQuery() {}

  /** The label selector of the events about {@code involved}. */
  public static LabelSelector about(InvolvedObject involved) {
    return LabelSelector.equalTo(
        Map.of(EventLog.LABEL_KIND, involved.kind(), EventLog.LABEL_NAME, involved.name()));
  }

  /**
   * The events about {@code involved}; with its uid, only those of that incarnation (and those that
   * name none): a task made again under its name starts with no events of its predecessor.
   */
  public static List<Event> about(ApiClient api, InvolvedObject involved) {
    return api.list(Kinds.EVENT, about(involved)).items().stream()
        .filter(e -> involved.sameIncarnation(e.spec().involved()))
        .sorted(Event.CHRONOLOGICAL)
        .toList();
  }
}
