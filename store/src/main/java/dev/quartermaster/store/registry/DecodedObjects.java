package dev.quartermaster.store.registry;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.store.KeyValue;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The last object decoded for each of many keys, so that reading an object that has not changed
 * costs a point read and a byte comparison instead of a JSON decode. The allocator reads each
 * claim, node and allocation record live before it writes, the store's rules read the record again,
 * every update reads what it replaces, and every watch event of a write decodes it: decoding
 * dominated those reads. What this registry writes is held here from its write on ({@link
 * StoredObjects#wrote}): the next update of an object is most often this process's own, seconds
 * later, long after the watches' window of recent revisions ({@link WatchDecodes}) has moved on.
 *
 * <p>A direct-mapped table: each key hashes to one of {@value #SLOTS} slots and a newer entry
 * simply replaces an older one, so the memory is bounded and no lock is taken: the workloads,
 * tasks, claims and events in flight. A hit must match the key, its modification revision and the
 * stored bytes exactly, so a collision or a key rewritten by another server costs a decode, never a
 * wrong object. Objects are immutable records: every reader may share one.
 *
 * <p>Kinds as many as the fleet's nodes, not its work, are held apart, one entry per key until the
 * object is deleted: the ledgers (one per cohort, the gang ledger one in all), which the rules of
 * every worker's create read and which grow with the cohort (181 KB for 1,000 workloads); and each
 * node's {@code Node}, {@code DeviceSlice} and {@code NodeAllocation}, read again at every
 * heartbeat, slice publish and allocation there. In the shared table the fleet's hundreds of
 * thousands of tasks and claims pushed them out between two reads: the ledger was decoded again for
 * each task (7 % of the control plane's CPU at 10,000 nodes), and a node at most heartbeats (a
 * quarter of a beat's CPU). Held apart they cost the memory of the fleet's own objects, most of
 * them the very instances the controllers' caches hold.
 *
 * <p>A reader holding the object for a key need not even read the value: the store's revision of
 * the key ({@link #held}) tells whether the held object is still the key's. A 181 KB ledger is no
 * longer copied out of SQLite, checksummed and compared byte for byte at every worker's create, nor
 * a task or claim before each of its updates.
 */
final class DecodedObjects {
  private static final int SLOTS = 1 << 16; // a power of two

  private record Entry(KeyValue kv, ApiObject object) {}

  /** The kinds held one entry per key: as many as the fleet's cohorts and nodes. */
  private static final Set<Kind<?>> PER_KEY =
      Set.of(
          Kinds.QUOTA_LEDGER,
          Kinds.GANG_LEDGER,
          Kinds.NODE,
          Kinds.DEVICE_SLICE,
          Kinds.NODE_ALLOCATION);

  private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
  private final ConcurrentHashMap<String, Entry> perKey = new ConcurrentHashMap<>();
  private final LongAdder hits = new LongAdder();

  /** The object held for exactly {@code kv}: its key, modification revision and bytes. */
  <T extends ApiObject> Optional<T> get(Kind<T> kind, KeyValue kv) {
    var e = PER_KEY.contains(kind) ? perKey.get(kv.key()) : slots.get(slot(kv.key()));
    if (e == null
        || e.kv().modRevision() != kv.modRevision()
        || !e.kv().key().equals(kv.key())
        || !kind.type().isInstance(e.object())
        || !e.kv().sameValue(kv)) {
      return Optional.empty();
    }
    hits.increment();
    return Optional.of(kind.cast(e.object()));
  }

  /** An object held decoded, and the mod revision of the stored value it is. */
  record Held<T extends ApiObject>(T object, long modRevision) {}

  /**
   * The object held for {@code key}, whatever its revision: the caller asks the store whether that
   * is still the key's revision ({@link dev.quartermaster.store.Store#modRevision}) instead of
   * reading a value it would only compare with this one. Empty when nothing is held for the key
   * (its slot of the shared table holds another), so that a second query is made only for a key
   * that was held and has moved since.
   */
  <T extends ApiObject> Optional<Held<T>> held(Kind<T> kind, String key) {
    var e = PER_KEY.contains(kind) ? perKey.get(key) : slots.get(slot(key));
    if (e == null || !e.kv().key().equals(key) || !kind.type().isInstance(e.object())) {
      return Optional.empty();
    }
    return Optional.of(new Held<>(kind.cast(e.object()), e.kv().modRevision()));
  }

  /** {@code held} served a read: counted with the other hits. */
  void served() {
    hits.increment();
  }

  /**
   * Holds {@code object}, decoded from {@code kv} or written as it, unless a later revision of the
   * same key is held: a watch far behind decodes old revisions, and each would push out the one
   * every live read asks for.
   */
  void put(KeyValue kv, ApiObject object) {
    var entry = new Entry(kv, object);
    if (PER_KEY.contains(Kinds.of(object))) {
      perKey.merge(kv.key(), entry, DecodedObjects::later);
    } else {
      slots.accumulateAndGet(slot(kv.key()), entry, DecodedObjects::later);
    }
  }

  /**
   * {@code key} was deleted: its entry goes, so that the per-key entries stay as many as the
   * objects (a stale entry could never be a hit, which needs the key's revision and bytes, but it
   * would hold its memory for ever).
   */
  void forget(String key) {
    perKey.remove(key); // the shared table is bounded: a newer key takes the slot in time
  }

  /** Entries held apart, one per key; tests use it. */
  int heldPerKey() {
    return perKey.size();
  }

  /** {@code held}, if it is a later revision of the same key, else {@code next}. */
  private static Entry later(Entry held, Entry next) {
    return held != null
            && held.kv().key().equals(next.kv().key())
            && held.kv().modRevision() > next.kv().modRevision()
        ? held
        : next;
  }

  /** Reads answered from the table; tests use it. */
  long hits() {
    return hits.sum();
  }

  /** Whether two keys share a slot of the shared table; tests use it. */
  static boolean sameSlot(String a, String b) {
    return slot(a) == slot(b);
  }

  private static int slot(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & (SLOTS - 1);
  }
}
