package dev.quartermaster.api.event;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import java.time.Instant;
import java.util.Comparator;

/**
 * A record of a decision a user would ask about ("scheduled to node-2", "waiting: no node can take
 * 1 x gpu", "device check failed"), attached to the object it concerns. One event stands for every
 * repetition of the same thing by the same component: {@link EventLog} counts repeats into it
 * instead of writing a new object each time, and the control plane deletes events not seen for an
 * hour. Events are best effort: losing one never changes what the cluster does.
 */
public record Event(ObjectMeta metadata, EventSpec spec, EventStatus status) implements ApiObject {
  /**
   * Oldest first, as kubectl lists events; ties by reason, then name, so a listing reads the same
   * every time.
   */
  public static final Comparator<Event> CHRONOLOGICAL =
      Comparator.<Event, Instant>comparing(e -> e.spec().lastSeen())
          .thenComparing(e -> e.spec().reason())
          .thenComparing(e -> e.metadata().name());

  public Event {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? EventSpec.EMPTY : spec;
    status = status == null ? EventStatus.EMPTY : status;
  }

  @Override
  public Event withMetadata(ObjectMeta m) {
    return new Event(m, spec, status);
  }

  @Override
  public Event withStatusOf(ApiObject other) {
    return new Event(metadata, spec, ((Event) other).status);
  }

  public Event withSpec(EventSpec s) {
    return new Event(metadata, s, status);
  }

  @Override
  public Kind<Event> kind() {
    return Kinds.EVENT;
  }
}
