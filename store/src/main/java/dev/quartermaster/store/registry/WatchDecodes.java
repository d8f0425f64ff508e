package dev.quartermaster.store.registry;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.core.recent.RecentRevisions;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.StoreEvent;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The decoded objects of recent watch events, shared by every watch of one registry. A thousand
 * watches of a kind are handed the same store event, and decoding its JSON once per watch was most
 * of the cost of fanning it out; objects are immutable records, so all watches may share one.
 *
 * <p>Slots are indexed by revision, each holding every key of that revision's transaction (a
 * scheduling decision or a batch of allocations writes dozens), so only a watch lagging more than
 * {@value #SLOTS} transactions behind decodes again. (When a slot held one key, the thirty claims
 * of one batch pushed each other out, and each of a hundred watches decoded every one again.) A hit
 * must match kind, key, revision, event type and the stored bytes, so anything else costs a decode,
 * never a wrong object. The first watch to reach an event decodes it; the others wait for that one.
 *
 * <p>The registry that writes an object hands it over: {@linkplain #writing while the write is in
 * the store} a watch that meets its bytes takes the writer's object (stamped with the revision),
 * and {@linkplain #seed once it is written} the object is held for later watches and reads. No
 * watch decodes what this process wrote. That relies on an object and the decode of its encoding
 * being equal, which every run with assertions on (every test) checks at each hand-over.
 */
final class WatchDecodes {
  private static final int SLOTS = 1024; // a power of two

  private final RecentRevisions<Key, Entry> recent = new RecentRevisions<>(SLOTS);
  private final LongAdder decodes = new LongAdder();
  private final LongAdder seeds = new LongAdder();

  /**
   * The writes of this registry now in the store, by store key: what a watch may meet before its
   * writer is back.
   */
  private final ConcurrentHashMap<String, Expected> writing = new ConcurrentHashMap<>();

  private record Expected(byte[] bytes, ApiObject object) {}

  /** What a decoded object depends on besides the bytes. */
  private record Key(Kind<?> kind, String storeKey, StoreEvent.Type type) {}

  /**
   * The object for one event: the one decoded already if {@code bytes} were decoded under this key
   * before, else {@code decoder}'s.
   */
  <T extends ApiObject> T decode(
      Kind<T> kind,
      String storeKey,
      long revision,
      StoreEvent.Type type,
      KeyValue source,
      Supplier<T> decoder) {
    var key = new Key(kind, storeKey, type);
    Supplier<ApiObject> make =
        () -> {
          var fromWriter =
              type == StoreEvent.Type.PUT
                  ? fromWriter(storeKey, revision, source)
                  : Optional.<ApiObject>empty();
          if (fromWriter.isPresent()) {
            assert fromWriter.get().equals(decoder.get())
                : storeKey
                    + " at "
                    + revision
                    + ": the written object differs from the decode of its bytes";
            seeds.increment();
            return fromWriter.get();
          }
          decodes.increment();
          return decoder.get();
        };
    var entries = recent.at(revision);
    var seen = entries.get(key);
    if (seen == null || !seen.holds(source)) {
      var fresh = new Entry(source);
      // Another watch may have put this very event first: then its entry is the one to share.
      seen =
          seen == null
              ? entries.putIfAbsent(key, fresh)
              : (entries.replace(key, seen, fresh) ? null : entries.get(key));
      if (seen == null || !seen.holds(source)) {
        seen = fresh;
      }
    }
    return kind.cast(seen.object(make));
  }

  private Optional<ApiObject> fromWriter(String storeKey, long revision, KeyValue source) {
    var expected = writing.get(storeKey);
    if (expected == null || !source.valueEquals(expected.bytes())) {
      return Optional.empty();
    }
    var o = expected.object();
    return Optional.of(o.withMetadata(o.metadata().withRevision(revision)));
  }

  /**
   * {@code object} is about to be put as {@code bytes} under {@code storeKey}: a watch that meets
   * those bytes takes it.
   */
  void writing(String storeKey, byte[] bytes, ApiObject object) {
    writing.put(storeKey, new Expected(bytes, object));
  }

  /** The write of {@code bytes} under {@code storeKey} is over (done or failed). */
  void notWriting(String storeKey, byte[] bytes) {
    writing.computeIfPresent(storeKey, (k, e) -> e.bytes() == bytes ? null : e);
  }

  /**
   * The object a watch already decoded (or its writer seeded) for {@code kv}'s put, if it is still
   * held and came from the same bytes: what a read of a recently changed object can use instead of
   * decoding again. Never adds an entry.
   */
  <T extends ApiObject> Optional<T> decoded(Kind<T> kind, KeyValue kv) {
    var entries = recent.peek(kv.modRevision());
    if (entries.isEmpty()) {
      return Optional.empty();
    }
    var seen = entries.get().get(new Key(kind, kv.key(), StoreEvent.Type.PUT));
    if (seen == null || !seen.holds(kv)) {
      return Optional.empty();
    }
    return Optional.ofNullable(seen.object).map(kind::cast);
  }

  /**
   * The object of this registry's write of {@code kv}'s bytes now in the store, stamped with {@code
   * kv}'s revision: for a read that meets it before its writer is back, or the rules judging the
   * rest of its batch ({@link BatchReads}).
   */
  <T extends ApiObject> Optional<T> inFlight(Kind<T> kind, KeyValue kv) {
    return fromWriter(kv.key(), kv.modRevision(), kv)
        .filter(kind.type()::isInstance)
        .map(kind::cast);
  }

  /**
   * Holds {@code object}, which this process just wrote as {@code bytes} under {@code storeKey} at
   * {@code revision}, for the watches that will see that put: they share it instead of decoding.
   *
   * @param decoder the decode of {@code bytes}, run only to check the two are equal where
   *     assertions are on
   */
  void seed(
      Kind<?> kind,
      String storeKey,
      long revision,
      byte[] bytes,
      ApiObject object,
      Supplier<? extends ApiObject> decoder) {
    assert object.equals(decoder.get())
        : storeKey
            + " at "
            + revision
            + ": the written object differs from the decode of its bytes";
    // The writer's bytes are never written to again: the entry may hold them as they are.
    var entry = new Entry(KeyValue.owning(storeKey, bytes, revision, revision, 1));
    entry.object = object;
    // A watch quick enough to see the put before its writer got back decoded it already: keep that
    // one.
    if (recent.at(revision).putIfAbsent(new Key(kind, storeKey, StoreEvent.Type.PUT), entry)
        == null) {
      seeds.increment();
    }
  }

  /** How many decodes actually ran; tests use it to check that fan-out decodes once per event. */
  long decodes() {
    return decodes.sum();
  }

  /** How many objects their writer handed over; tests use it beside {@link #decodes}. */
  long seeds() {
    return seeds.sum();
  }

  private final class Entry {
    /** The key-value it was made from: live events hand every watch that same one. */
    private final KeyValue source;

    private volatile ApiObject
        object; // written under this; absent until the first caller decoded it

    Entry(KeyValue source) {
      this.source = source;
    }

    /**
     * Made from {@code kv}'s bytes: answered by identity for live events, else by comparing without
     * a copy.
     */
    boolean holds(KeyValue kv) {
      return kv == source || kv.sameValue(source);
    }

    ApiObject object(Supplier<? extends ApiObject> decoder) {
      var done = object;
      if (done != null) {
        return done; // the common case, without queueing a thousand watches on the lock one by one
      }
      synchronized (this) {
        if (object == null) {
          object =
              decoder.get(); // a failure is not kept: the next caller tries again and fails alike
        }
        return object;
      }
    }
  }
}
