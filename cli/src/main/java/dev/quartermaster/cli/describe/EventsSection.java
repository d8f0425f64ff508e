package dev.quartermaster.cli.describe;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.format.Age;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.table.Table;
import dev.quartermaster.cli.events.EventQuery;
import java.util.List;
import java.util.Optional;

/**
 * The last lines of every {@code describe}: what happened to the object, as kubectl ends its
 * describe.
 */
final class EventsSection {
  /** The most recent ones; {@code qm get events --for KIND/NAME} shows all. */
  static final int SHOWN = 15;

  private EventsSection() {}

  static void write(ApiObject object, DescribeContext context, Description out) {
    List<Event> events;
    try {
      events = EventQuery.about(context.api(), InvolvedObject.of(object));
    } catch (ApiException e) {
      // An older server without events: describe the object all the same.
      out.field("Events", "<unavailable: " + e.getMessage() + ">");
      return;
    }
    if (events.isEmpty()) {
      out.field("Events", Table.NONE);
      return;
    }
    var recent = events.subList(Math.max(0, events.size() - SHOWN), events.size());
    var rows =
        recent.stream()
            .map(
                e ->
                    List.of(
                        e.spec().type().name(),
                        e.spec().reason(),
                        Age.since(Optional.of(e.spec().lastSeen()), context.now())
                            + (e.spec().count() > 1
                                ? " (x"
                                    + e.spec().count()
                                    + " over "
                                    + Age.since(Optional.of(e.spec().firstSeen()), context.now())
                                    + ")"
                                : ""),
                        e.spec().source(),
                        e.spec().message().replace('\n', ' ')))
            .toList();
    out.table("Events", new Table(List.of("TYPE", "REASON", "AGE", "FROM", "MESSAGE"), rows));
  }
}
