package dev.quartermaster.store.registry;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.store.StoreEvent;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The decoded objects of recent watch events, shared by every watch of one registry. A thousand
 * watches of a kind are handed the same store event, and decoding its JSON once per watch was most
 * of the cost of fanning it out; objects are immutable records, so all watches may share one.
 *
 * <p>Slots are indexed by revision: the registry writes one key per transaction, so no two of its
 * events within {@value #SLOTS} revisions share a slot, and only a watch lagging further behind than
 * that decodes again. A hit must match kind, key, revision, event type and the stored bytes, so a
 * collision (another writer putting several keys in one revision) costs a decode, never a wrong
 * object. The first watch to reach an event decodes it; the others wait for that one decode.
 */
final class WatchDecodes {
  private static final int SLOTS = 1024; // a power of two

  private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
  private final LongAdder decodes = new LongAdder();

  /** What a decoded object depends on besides the bytes. */
  private record Key(Kind<?> kind, String storeKey, long revision, StoreEvent.Type type) {}

  /**
   * The object for one event: the one decoded already if {@code bytes} were decoded under this key
   * before, else {@code decoder}'s.
   */
  <T extends ApiObject> T decode(Kind<T> kind, String storeKey, long revision, StoreEvent.Type type, byte[] bytes,
      Supplier<T> decoder) {
    var key = new Key(kind, storeKey, revision, type);
    int slot = (int) (revision & (SLOTS - 1));
    while (true) {
      var seen = slots.get(slot);
      if (seen != null && seen.holds(key, bytes)) {
        return kind.cast(seen.object(decoder));
      }
      var fresh = new Entry(key, bytes);
      if (slots.compareAndSet(slot, seen, fresh)) {
        return kind.cast(fresh.object(decoder));
      }
      // Another watch filled the slot first, most likely with this very event: look again.
    }
  }

  /**
   * The object a watch already decoded for this key's put at {@code revision}, if it is still
   * held and was decoded from the same bytes: what a read of a recently changed object can use
   * instead of decoding again. Never adds an entry (a read must not push out an event that lagging
   * watches still need).
   */
  <T extends ApiObject> java.util.Optional<T> decoded(Kind<T> kind, String storeKey, long revision, byte[] bytes) {
    var seen = slots.get((int) (revision & (SLOTS - 1)));
    if (seen == null || !seen.holds(new Key(kind, storeKey, revision, StoreEvent.Type.PUT), bytes)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.ofNullable(seen.object).map(kind::cast);
  }

  /** How many decodes actually ran; tests use it to check that fan-out decodes once per event. */
  long decodes() {
    return decodes.sum();
  }

  private final class Entry {
    private final Key key;
    private final byte[] bytes;
    private volatile ApiObject object; // written under this; absent until the first caller decoded it

    Entry(Key key, byte[] bytes) {
      this.key = key;
      this.bytes = bytes;
    }

    boolean holds(Key other, byte[] otherBytes) {
      // Live events hand every watch the same array, so the identity check inside equals answers.
      return key.equals(other) && Arrays.equals(bytes, otherBytes);
    }

    ApiObject object(Supplier<? extends ApiObject> decoder) {
      var done = object;
      if (done != null) {
        return done; // the common case, without queueing a thousand watches on the lock one by one
      }
      synchronized (this) {
        if (object == null) {
          object = decoder.get(); // a failure is not kept: the next caller tries again and fails alike
          decodes.increment();
        }
        return object;
      }
    }
  }
}
