package dev.quartermaster.core.recent;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Values kept for the last revisions of a store, each revision's by key: what many watchers of one
 * event share (its decoded object, its encoded line) so that only the first of them does the work.
 *
 * <p>A ring of slots indexed by revision; a slot holds one revision and every key of it (a
 * transaction may write dozens of objects), and the newest revision to reach a slot pushes out the
 * older one. So a caller at most {@code slots} revisions behind finds what the others left; one
 * further behind gets a map of its own, shared with nobody, and does the work again. Nothing is
 * ever wrong, only sometimes recomputed: callers check that a value fits before they use it.
 * Lock-free; safe for any number of threads.
 */
public final class RecentRevisions<K, V> {
  private record Slot<K, V>(long revision, ConcurrentMap<K, V> values) {}

  private final AtomicReferenceArray<Slot<K, V>> slots;
  private final int mask;

  /**
   * @param slots how many revisions are kept: a power of two
   */
  public RecentRevisions(int slots) {
    if (slots <= 0 || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two, got " + slots);
    }
    this.slots = new AtomicReferenceArray<>(slots);
    this.mask = slots - 1;
  }

  /**
   * The values of {@code revision}, taking its slot from an older revision; for a revision older
   * than the one its slot holds, an empty map nobody else sees.
   */
  public ConcurrentMap<K, V> at(long revision) {
    int slot = (int) (revision & mask);
    while (true) {
      var held = slots.get(slot);
      if (held != null && held.revision() == revision) {
        return held.values();
      }
      if (held != null && held.revision() > revision) {
        return new ConcurrentHashMap<>(); // far behind: work alone, and keep the newer revision's
        // slot
      }
      var fresh = new Slot<K, V>(revision, new ConcurrentHashMap<>(4));
      if (slots.compareAndSet(slot, held, fresh)) {
        return fresh.values();
      }
    }
  }

  /**
   * The values of {@code revision} if its slot holds it; never takes a slot (a read must not push
   * out what watchers still need).
   */
  public Optional<ConcurrentMap<K, V>> peek(long revision) {
    var held = slots.get((int) (revision & mask));
    return held != null && held.revision() == revision
        ? Optional.of(held.values())
        : Optional.empty();
  }
}
