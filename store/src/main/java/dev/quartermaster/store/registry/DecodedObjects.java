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
 * simply replaces an older one, so the memory is bounded and no lock is taken. There are enough
 * slots for 10,000 nodes (each rewritten by its heartbeat every 10 s), as many slices and
 * workloads, and the tasks and claims in flight beside them. A hit must match the key, its
 * modification revision and the stored bytes exactly, so a collision or a key rewritten by another
 * server costs a decode, never a wrong object. Objects are immutable records: every reader may
 * share one.
 *
 * <p>The ledgers are held apart, one entry per key: there is one per cohort (the gang ledger one in
 * all), the rules of every worker's create read its cohort's quota ledger, and it grows with the
 * cohort (181 KB for 1,000 workloads). In the shared table the fleet's hundreds of thousands of
 * tasks and claims pushed it out between two creates, and decoding it again for each task was 7 %
 * of the control plane's CPU at 10,000 nodes.
 */
final class DecodedObjects {
  private static final int SLOTS = 1 << 16; // a power of two

  private record Entry(KeyValue kv, ApiObject object) {}

  /** The kinds held one entry per key ({@link Kinds#QUOTA_LEDGER}, {@link Kinds#GANG_LEDGER}). */
  private static final Set<Kind<?>> LEDGERS = Set.of(Kinds.QUOTA_LEDGER, Kinds.GANG_LEDGER);

  private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
  private final ConcurrentHashMap<String, Entry> ledgers = new ConcurrentHashMap<>();
  private final LongAdder hits = new LongAdder();

  /** The object held for exactly {@code kv}: its key, modification revision and bytes. */
  <T extends ApiObject> Optional<T> get(Kind<T> kind, KeyValue kv) {
    var e = LEDGERS.contains(kind) ? ledgers.get(kv.key()) : slots.get(slot(kv.key()));
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

  /**
   * Holds {@code object}, decoded from {@code kv} or written as it, unless a later revision of the
   * same key is held: a watch far behind decodes old revisions, and each would push out the one
   * every live read asks for.
   */
  void put(KeyValue kv, ApiObject object) {
    var entry = new Entry(kv, object);
    if (LEDGERS.contains(Kinds.of(object))) {
      ledgers.merge(kv.key(), entry, DecodedObjects::later);
    } else {
      slots.accumulateAndGet(slot(kv.key()), entry, DecodedObjects::later);
    }
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

  private static int slot(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & (SLOTS - 1);
  }
}
