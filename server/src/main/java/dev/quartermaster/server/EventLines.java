package dev.quartermaster.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.http.WatchLine;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.core.recent.RecentRevisions;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * The encoded lines of recent watch events, shared by every stream. A thousand streams of a kind
 * write the same event, and encoding its JSON once per stream was half the cost of fanning it out;
 * now the first stream to reach an event encodes it and the others write the same bytes.
 *
 * <p>Slots are indexed by revision, each holding the lines of every object of that revision's
 * transaction (a batch of allocations writes dozens of claims in one), by event type, kind and name
 * (a selector turns one revision's {@code MODIFIED} into {@code ADDED} or {@code DELETED} for some
 * streams). When a slot held one line, the claims of one batch pushed each other out and each of a
 * thousand streams encoded most of them again. A hit must also have an equal object; the registry
 * hands every watch the same object, so the check is an identity comparison. Only a stream more
 * than {@value #SLOTS} transactions behind encodes again, and nothing costs more than an encode.
 */
final class EventLines {
  private static final int SLOTS = 1024; // a power of two

  private final RecentRevisions<Key, Entry> recent = new RecentRevisions<>(SLOTS);
  private final LongAdder encodes = new LongAdder();

  private record Key(WatchEvent.Type type, String kind, String name) {}

  /**
   * The line for {@code event}: {@code {"type":..,"object":..}} and a newline. Callers must not
   * change it.
   */
  byte[] line(WatchEvent<?> event) {
    var key = new Key(event.type(), event.object().kind().name(), event.object().metadata().name());
    var lines = recent.at(event.revision());
    var seen = lines.get(key);
    if (seen == null || !seen.holds(event)) {
      var fresh = new Entry(event.type(), event.object());
      // Another stream may have put this very event first: then its entry is the one to share.
      seen =
          seen == null
              ? lines.putIfAbsent(key, fresh)
              : (lines.replace(key, seen, fresh) ? null : lines.get(key));
      if (seen == null || !seen.holds(event)) {
        seen = fresh;
      }
    }
    return seen.bytes();
  }

  /**
   * How many lines were actually encoded; tests use it to check that fan-out encodes once per
   * event.
   */
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
