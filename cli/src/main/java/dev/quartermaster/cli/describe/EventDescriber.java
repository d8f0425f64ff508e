package dev.quartermaster.cli.describe;

import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.format.Age;
import java.util.Optional;

/** One event in whole: about what, from whom, how often, and the latest message. */
final class EventDescriber implements Describer<Event> {
  @Override
  public void describe(Event event, DescribeContext context, Description out) {
    var s = event.spec();
    out.field("Object", s.involved().toString());
    out.field("Type", s.type().name());
    out.field("Reason", s.reason());
    out.field("Source", s.source());
    out.field("Count", s.count());
    out.field(
        "First seen",
        s.firstSeen() + " (" + Age.since(Optional.of(s.firstSeen()), context.now()) + " ago)");
    out.field(
        "Last seen",
        s.lastSeen() + " (" + Age.since(Optional.of(s.lastSeen()), context.now()) + " ago)");
    out.field("Message", s.message());
  }
}
