package dev.quartermaster.store.sqlite;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The newest row of each key the writer wrote lately, so that a point read of a recently written
 * key (the agents' and the allocator's live reads, and the writer's own read of what each put
 * replaces) does not go to SQLite: those reads were a tenth of the end-to-end bench's CPU, in JNI,
 * {@code pread} and the WAL's {@code fcntl} locks.
 *
 * <p>Only the writer thread changes the table. Before its COMMIT it forgets every key the batch
 * writes, so a read racing the commit asks SQLite, which answers from before or after it, never a
 * mix; after the COMMIT it holds their new rows, before any caller or watch hears of the commit.
 * So a read that finds a row here gets the newest committed one, or one no newer read has been
 * answered past: the table never answers a read that SQLite, asked at the same moment, would
 * answer with a later revision of that key. A read that misses asks SQLite and does not fill the
 * table: only the writer knows that a row is still the newest.
 *
 * <p>Direct-mapped, as {@code DecodedObjects} is: each key hashes to one of {@value #SLOTS} slots,
 * and a newer entry replaces the one there, so memory is bounded and no lock is taken. A value over
 * {@value #MAX_VALUE} bytes is not held (at most {@value #SLOTS} × that, 64 MiB; objects of a
 * few KiB keep it near 10 MiB).
 */
class LatestRows { // not final: a test checks, at each call, what SQLite has committed
  static final int SLOTS = 1 << 13;
  static final int MAX_VALUE = 8 * 1024;

  /** A key's newest row: empty when the newest is a tombstone (the key does not exist). */
  private record Entry(String key, Optional<LogRow> live) {}

  private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);

  /** The key's newest live row (empty: it does not exist), if the table holds it. */
  Optional<Optional<LogRow>> find(String key) {
    var e = slots.get(slot(key));
    if (e == null || !e.key().equals(key)) {
      return Optional.empty();
    }
    return Optional.of(e.live());
  }

  /** Writer only, before a COMMIT that writes {@code key}: a read now asks SQLite. */
  void forget(String key) {
    int s = slot(key);
    var e = slots.get(s);
    if (e != null && e.key().equals(key)) {
      slots.set(s, null);
    }
  }

  /** Writer only, after the COMMIT: {@code live} is the key's newest row (empty: deleted). */
  void hold(String key, Optional<LogRow> live) {
    if (live.isPresent() && live.get().value().length > MAX_VALUE) {
      forget(key);
      return;
    }
    slots.set(slot(key), new Entry(key, live));
  }

  private static int slot(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & (SLOTS - 1);
  }
}
