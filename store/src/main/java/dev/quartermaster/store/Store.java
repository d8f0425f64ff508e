package dev.quartermaster.store;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * A revisioned key-value store, with etcd's semantics so that SQLite and etcd can both implement
 * it.
 *
 * <p>Every successful write transaction gets the next store revision (strictly increasing, no gaps
 * between committed transactions). Each key remembers the revision that created it and the revision
 * of its last modification. A transaction compares key revisions and then applies its puts and
 * deletes atomically; a write is acknowledged only after it is durable. A watch delivers every
 * change after a given revision, in revision order, exactly once, or reports that the history it
 * needs was compacted.
 */
public interface Store extends AutoCloseable {

  /** The current value of {@code key}, if it exists. */
  Optional<KeyValue> get(String key);

  /**
   * The modification revision of {@code key}'s current value, without the value; empty if the key
   * does not exist. For a reader that holds the value decoded at some revision: a store never puts
   * two values of one key at the same revision, which is what every compare-and-set on a key's mod
   * revision already rests on, so a reader finding its revision here need not read the value. The
   * default reads the value; a store that can leave it out does.
   */
  default OptionalLong modRevision(String key) {
    var kv = get(key);
    return kv.isPresent() ? OptionalLong.of(kv.get().modRevision()) : OptionalLong.empty();
  }

  /**
   * All keys starting with {@code prefix}, as they were at {@code revision} ({@code 0} = now),
   * ordered by key.
   *
   * @throws CompactedException when {@code revision} is older than the compacted revision
   * @throws FutureRevisionException when {@code revision} is newer than the current revision
   */
  Range range(String prefix, long revision);

  /**
   * One page of {@link #range(String, long)}: at most {@code limit} keys under {@code prefix} after
   * {@code startAfter} (exclusive; empty: from the first), as they were at {@code revision} ({@code
   * 0} = now), ordered by key. A list pages through a kind at one revision, so its pages are one
   * snapshot however many there are; a store reads only the page where it can (the default reads
   * the whole range and cuts it).
   *
   * @throws CompactedException when {@code revision} is older than the compacted revision
   * @throws FutureRevisionException when {@code revision} is newer than the current revision
   */
  default Range range(String prefix, long revision, String startAfter, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, got " + limit);
    }
    var all = range(prefix, revision);
    return new Range(
        all.kvs().stream().filter(kv -> kv.key().compareTo(startAfter) > 0).limit(limit).toList(),
        all.revision());
  }

  /** Applies {@code txn} atomically; durable before it returns. */
  TxnResult txn(Txn txn);

  /**
   * The most puts and deletes one transaction may carry; a larger one is refused with {@link
   * StoreLimitException}. Unlimited ({@link Integer#MAX_VALUE}) unless the store says otherwise.
   */
  default int writesPerTxn() {
    return Integer.MAX_VALUE;
  }

  /**
   * Delivers every change to keys under {@code prefix} with revision greater than {@code
   * afterRevision}, in revision order, then keeps delivering new changes until the watch is closed.
   * Calls to one listener never overlap. If the history after {@code afterRevision} has been
   * compacted, the listener gets {@link WatchListener#onCompacted} once and the watch ends.
   */
  Watch watch(String prefix, long afterRevision, WatchListener listener);

  /**
   * As {@link #watch(String, long, WatchListener)}, but a live change whose {@link Audience} leaves
   * {@code route} out may be left out: the watch delivers at least every change that concerns
   * {@code route}, in the same order, and may deliver others (a replayed history, or a store that
   * does not route, delivers them all). What it skips, it skips without a trace: a watcher of a
   * route cannot tell how far the store has moved on from what it is told. Routes let a thousand
   * node agents watch the same prefix without each being woken by every change of the cluster.
   */
  default Watch watch(String prefix, String route, long afterRevision, WatchListener listener) {
    return watch(prefix, afterRevision, listener);
  }

  /**
   * Discards history at and below {@code revision}: afterwards reads and watches must start at or
   * after it. The current value of every live key is kept.
   */
  void compact(long revision);

  /** The revision of the last committed transaction (0 for an empty store). */
  long currentRevision();

  /** The highest revision compacted so far (0 if never compacted). */
  long compactedRevision();

  @Override
  void close();
}
