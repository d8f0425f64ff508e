package dev.quartermaster.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.http.WatchLine;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.ApiObject;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The encoded lines of recent watch events, shared by every stream. A thousand streams of a kind
 * write the same event, and encoding its JSON once per stream was half the cost of fanning it out;
 * now the first stream to reach an event encodes it and the others write the same bytes.
 *
 * <p>Slots are indexed by revision and event type (a selector turns one revision's {@code MODIFIED}
 * into {@code ADDED} or {@code DELETED} for some streams). A hit must have the same type and an equal
 * object, which covers kind, name and revision; the registry hands every watch the same object, so
 * the check is an identity comparison. A collision costs an encode, never a wrong line.
 */
final class EventLines {
  /** Four per revision, one for each event type and one spare: lines for the last 1,024 revisions. */
  private static final int SLOTS = 4096;

  private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
  private final LongAdder encodes = new LongAdder();

  /** The line for {@code event}: {@code {"type":..,"object":..}} and a newline. Callers must not change it. */
  byte[] line(WatchEvent<?> event) {
    int slot = (int) (((event.revision() << 2) | event.type().ordinal()) & (SLOTS - 1));
    while (true) {
      var seen = slots.get(slot);
      if (seen != null && seen.holds(event)) {
        return seen.bytes();
      }
      var fresh = new Entry(event.type(), event.object());
      if (slots.compareAndSet(slot, seen, fresh)) {
        return fresh.bytes();
      }
      // Another stream filled the slot first, most likely with this very event: look again.
    }
  }

  /** How many lines were actually encoded; tests use it to check that fan-out encodes once per event. */
  long encodes() {
    return encodes.sum();
  }

  private final class Entry {
    private final WatchEvent.Type type;
    private final ApiObject object;
    private volatile byte[] bytes; // written under this; absent until the first caller encoded it

    Entry(WatchEvent.Type type, ApiObject object) {
      this.type = type;
      this.object = object;
    }

    boolean holds(WatchEvent<?> event) {
      return type == event.type() && (object == event.object() || object.equals(event.object()));
    }

    byte[] bytes() {
      var done = bytes;
      if (done != null) {
        return done; // the common case, without queueing a thousand streams on the lock one by one
      }
      synchronized (this) {
        if (bytes == null) {
          bytes = encode(new WatchEvent<>(type, object));
          encodes.increment();
        }
        return bytes;
      }
    }
  }

  private static byte[] encode(WatchEvent<?> event) {
    try {
      var json = ObjectCodec.json().writeValueAsBytes(WatchLine.event(event));
      var line = Arrays.copyOf(json, json.length + 1);
      line[json.length] = '\n';
      return line;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a watch line does not encode", e);
    }
  }
}
