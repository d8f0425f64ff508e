package dev.quartermaster.api.event;

import java.time.Instant;

/**
 * @param involved the object the event is about
 * @param type Normal or Warning
 * @param reason a short CamelCase word a program can match on ({@code Scheduled}, {@code
 *     DeviceCheckFailed})
 * @param message what happened, for people; the latest repetition's text
 * @param source who reported it: a controller ({@code scheduler}) or an agent ({@code
 *     agent/node-1})
 * @param count how many times it happened between {@code firstSeen} and {@code lastSeen}
 */
public record EventSpec(
    InvolvedObject involved,
    EventType type,
    String reason,
    String message,
    String source,
    long count,
    Instant firstSeen,
    Instant lastSeen) {
  public static final EventSpec EMPTY =
      new EventSpec(
          InvolvedObject.NONE, EventType.Normal, "", "", "", 1, Instant.EPOCH, Instant.EPOCH);

  public EventSpec {
    involved = involved == null ? InvolvedObject.NONE : involved;
    type = type == null ? EventType.Normal : type;
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
    source = source == null ? "" : source;
    firstSeen = firstSeen == null ? Instant.EPOCH : firstSeen;
    lastSeen = lastSeen == null ? Instant.EPOCH : lastSeen;
  }

  /** This event, repeated {@code times} more, the last time at {@code at} saying {@code latest}. */
  public EventSpec repeated(long times, Instant at, String latest) {
    return new EventSpec(
        involved,
        type,
        reason,
        latest,
        source,
        count + times,
        firstSeen,
        at.isAfter(lastSeen) ? at : lastSeen);
  }
}
