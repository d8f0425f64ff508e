package dev.quartermaster.sim;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.store.CompactedException;
import dev.quartermaster.store.FutureRevisionException;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.StoreLimitException;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-memory {@link Store} for simulations: revisioned, compare-and-set, compactable, and with
 * watches that deliver through the {@link Env} — each event late by a random delay, in order per
 * watch, and sometimes not at all because the watch was dropped (see {@link WatchFaults}).
 *
 * <p>Under a {@link dev.quartermaster.core.env.DeterministicEnv} everything, delays and drops
 * included, follows from the env's seed, so a failing run replays. It is also thread-safe, so it
 * can stand in for a real store under {@link dev.quartermaster.core.env.SystemEnv}.
 *
 * <p>History is kept as a log of changes since the compacted revision; a read at an old revision
 * undoes the newer changes. Writes commit at once; only watch delivery is delayed.
 */
public final class SimStore implements Store {
  private volatile int writesPerTxn = Integer.MAX_VALUE;

  private final Env env;
  private final ReentrantLock lock = new ReentrantLock();
  private final TreeMap<String, KeyValue> live = new TreeMap<>();

  /** Every change after {@link #compacted}, in revision order. */
  private final ArrayList<StoreEvent> log = new ArrayList<>();

  private final WatchTable<SimWatch> watches = new WatchTable<>();
  private final List<CommitListener> commitListeners = new CopyOnWriteArrayList<>();
  private volatile WatchFaults faults;
  private long revision;
  private long compacted;
  private boolean closed;

  /** A store whose watches deliver through {@code env}, mistreated as {@code faults} says. */
  public SimStore(Env env, WatchFaults faults) {
    this.env = Objects.requireNonNull(env, "env");
    this.faults = Objects.requireNonNull(faults, "faults");
  }

  /** A store with prompt, faithful watches. */
  public SimStore(Env env) {
    this(env, WatchFaults.NONE);
  }

  /**
   * Changes how later deliveries are mistreated (e.g. heal the network: {@link WatchFaults#NONE}).
   */
  public void setFaults(WatchFaults faults) {
    this.faults = Objects.requireNonNull(faults, "faults");
  }

  /** Registers a listener told of each commit synchronously, see {@link CommitListener}. */
  public void onCommit(CommitListener listener) {
    commitListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Ends every open watch now, as a lost connection would ({@code compacted}: as if its history
   * were gone), dropping whatever it had not delivered yet.
   */
  public void dropWatches(boolean asCompacted) {
    for (SimWatch w : watches.all()) {
      w.drop(asCompacted);
    }
  }

  /** Open watches, for tests. */
  public int openWatches() {
    return watches.size();
  }

  @Override
  public Optional<KeyValue> get(String key) {
    lock.lock();
    try {
      checkOpen();
      return Optional.ofNullable(live.get(key));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Range range(String prefix, long atRevision) {
    lock.lock();
    try {
      checkOpen();
      if (atRevision > revision) {
        throw new FutureRevisionException(atRevision, revision);
      }
      if (atRevision != 0 && atRevision < compacted) {
        throw new CompactedException(atRevision, compacted);
      }
      TreeMap<String, KeyValue> view =
          new TreeMap<>(live.subMap(prefix, true, prefix + Character.MAX_VALUE, true));
      long at = atRevision == 0 ? revision : atRevision;
      // Undo the changes after the requested revision, newest first.
      for (int i = log.size() - 1; i >= 0 && log.get(i).revision() > at; i--) {
        StoreEvent e = log.get(i);
        String key = e.kv().key();
        if (!key.startsWith(prefix)) {
          continue;
        }
        e.previous().ifPresentOrElse(prev -> view.put(key, prev), () -> view.remove(key));
      }
      return new Range(List.copyOf(view.values()), at);
    } finally {
      lock.unlock();
    }
  }

  /**
   * From now on, refuses a transaction of more than {@code writes} puts and deletes with {@link
   * StoreLimitException}, before looking at it, as etcd's store does over its operation limit: a
   * simulation of a store whose transactions are bounded.
   */
  public void limitWritesPerTxn(int writes) {
    this.writesPerTxn = writes;
  }

  @Override
  public int writesPerTxn() {
    return writesPerTxn;
  }

  @Override
  public TxnResult txn(Txn txn) {
    int limit = writesPerTxn;
    for (var branch : List.of(txn.onSuccess(), txn.onFailure())) {
      if (branch.size() > limit) {
        throw new StoreLimitException(
            "a transaction of "
                + branch.size()
                + " writes is over this store's limit of "
                + limit
                + " writes per transaction");
      }
    }
    lock.lock();
    try {
      checkOpen();
      boolean holds = txn.compares().stream().allMatch(this::holds);
      List<Txn.Op> ops = holds ? txn.onSuccess() : txn.onFailure();
      checkDistinctKeys(ops);
      long next = revision + 1;
      List<StoreEvent> changes = new ArrayList<>();
      List<KeyValue> written = new ArrayList<>();
      for (Txn.Op op : ops) {
        KeyValue prev = live.get(op.key());
        switch (op) {
          case Txn.Op.Put put -> {
            KeyValue kv =
                prev == null
                    ? new KeyValue(put.key(), put.value(), next, next, 1)
                    : new KeyValue(
                        put.key(), put.value(), prev.createRevision(), next, prev.version() + 1);
            live.put(put.key(), kv);
            written.add(kv);
            changes.add(
                new StoreEvent(StoreEvent.Type.PUT, kv, Optional.ofNullable(prev), put.audience()));
          }
          case Txn.Op.Delete delete -> {
            if (prev != null) {
              live.remove(delete.key());
              changes.add(
                  new StoreEvent(
                      StoreEvent.Type.DELETE,
                      new KeyValue(delete.key(), new byte[0], prev.createRevision(), next, 0),
                      Optional.of(prev),
                      delete.audience()));
            }
          }
        }
      }
      if (changes.isEmpty()) {
        return new TxnResult(holds, revision, written);
      }
      revision = next;
      log.addAll(changes);
      List<StoreEvent> committed = List.copyOf(changes);
      for (CommitListener l : commitListeners) {
        l.committed(next, committed);
      }
      for (SimWatch w : watches.hearing(committed)) {
        w.offer(committed);
      }
      return new TxnResult(holds, next, written);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Watch watch(String prefix, long afterRevision, WatchListener listener) {
    return watch(prefix, Optional.empty(), afterRevision, listener);
  }

  /**
   * Routes replayed changes as well as live ones: stricter than a real store, which replays them
   * all.
   */
  @Override
  public Watch watch(String prefix, String route, long afterRevision, WatchListener listener) {
    return watch(prefix, Optional.of(route), afterRevision, listener);
  }

  private Watch watch(
      String prefix, Optional<String> route, long afterRevision, WatchListener listener) {
    lock.lock();
    try {
      checkOpen();
      SimWatch w = new SimWatch(prefix, route, afterRevision, listener);
      if (afterRevision < compacted) {
        w.end(true, compacted);
        return w;
      }
      // Replay and registration under one lock: no change falls between them.
      w.offer(List.copyOf(log.subList(firstAfter(afterRevision), log.size())));
      w.caughtUpAt(Math.max(revision, afterRevision));
      watches.add(w, prefix, route);
      return w;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The index in {@link #log} of its first change after {@code revision}: found by halving, as the
   * log is in revision order, so a watch that starts near the head does not read the whole history
   * (a long run's re-lists did, and that grew with the run and the fleet).
   */
  private int firstAfter(long revision) {
    int low = 0;
    int high = log.size();
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (log.get(mid).revision() <= revision) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  @Override
  public void compact(long atRevision) {
    lock.lock();
    try {
      checkOpen();
      if (atRevision > revision) {
        throw new FutureRevisionException(atRevision, revision);
      }
      if (atRevision < compacted) {
        throw new CompactedException(atRevision, compacted);
      }
      log.removeIf(e -> e.revision() <= atRevision);
      compacted = atRevision;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public long currentRevision() {
    lock.lock();
    try {
      return revision;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public long compactedRevision() {
    lock.lock();
    try {
      return compacted;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
    for (SimWatch w : watches.all()) {
      w.end(false, 0);
    }
  }

  private boolean holds(Txn.Compare compare) {
    return switch (compare) {
      case Txn.Compare.ModRevision m -> {
        KeyValue kv = live.get(m.key());
        yield (kv == null ? 0 : kv.modRevision()) == m.modRevision();
      }
    };
  }

  private static void checkDistinctKeys(List<Txn.Op> ops) {
    var seen = new HashSet<String>();
    for (Txn.Op op : ops) {
      if (!seen.add(op.key())) {
        throw new IllegalArgumentException("transaction touches key " + op.key() + " twice");
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("store is closed");
    }
  }

  /**
   * One watch: events wait in a queue, each released by its own env timer at a due time that never
   * precedes the previous one's, so order holds whatever the delays. A delivery hands out the head
   * of the queue, so timers firing together (on real threads) cannot reorder it.
   */
  private final class SimWatch implements Watch {
    private final String prefix;
    private final Optional<String> route;

    /** Changes at or below this are not wanted (it may lie in the future). */
    private final long afterRevision;

    private final WatchListener listener;
    private final ReentrantLock delivery = new ReentrantLock();
    private final java.util.ArrayDeque<StoreEvent> queue = new java.util.ArrayDeque<>();
    private long lastDue;

    /**
     * Set when the watch must end at its next delivery; read and written under {@link #delivery}.
     */
    private Optional<Runnable> ending = Optional.empty();

    private volatile boolean over;

    /**
     * The revision the replay reaches, told to the listener once ({@link
     * WatchListener#onCaughtUp}); -1 once told.
     */
    private long caughtUp = -1;

    /**
     * The caught-up word is due but waits for the replay's last change; under {@link #delivery}.
     */
    private boolean caughtUpDue;

    SimWatch(String prefix, Optional<String> route, long afterRevision, WatchListener listener) {
      this.prefix = prefix;
      this.route = route;
      this.afterRevision = afterRevision;
      this.listener = listener;
    }

    /** Called under the store lock, in commit order. */
    void offer(List<StoreEvent> events) {
      WatchFaults f = faults;
      for (StoreEvent e : events) {
        if (!e.kv().key().startsWith(prefix)
            || e.revision() <= afterRevision
            || route.filter(r -> !e.audience().includes(r)).isPresent()) {
          continue;
        }
        long now = env.nanoTime();
        long delay = f.maxDelay().isZero() ? 0 : env.random().nextLong(f.maxDelay().toNanos() + 1);
        long due = Math.max(lastDue, now + delay);
        lastDue = due;
        synchronized (queue) {
          queue.addLast(e);
        }
        env.schedule(java.time.Duration.ofNanos(due - now), this::deliverOne);
      }
    }

    /**
     * After the replay just offered (in delivery order, behind it), the listener hears it reached
     * {@code revision}.
     */
    void caughtUpAt(long revision) {
      caughtUp = revision;
      long now = env.nanoTime();
      long due = Math.max(lastDue, now);
      lastDue = due;
      env.schedule(
          java.time.Duration.ofNanos(due - now),
          () -> {
            delivery.lock();
            try {
              if (!over && ending.isEmpty()) {
                if (replayPending()) {
                  // A real-time env may run this before a delivery due at the same instant: the
                  // last replayed change tells it instead.
                  caughtUpDue = true;
                } else {
                  tellCaughtUp();
                }
              }
            } finally {
              delivery.unlock();
            }
          });
    }

    /** Whether a change at or below the caught-up revision is still to be delivered. */
    private boolean replayPending() {
      synchronized (queue) {
        return queue.stream().anyMatch(e -> e.revision() <= caughtUp);
      }
    }

    /** Called under {@link #delivery}. */
    private void tellCaughtUp() {
      caughtUpDue = false;
      if (caughtUp >= 0) {
        long at = caughtUp;
        caughtUp = -1;
        listener.onCaughtUp(at);
      }
    }

    private void deliverOne() {
      delivery.lock();
      try {
        if (over) {
          return;
        }
        if (ending.isPresent()) {
          finish();
          return;
        }
        StoreEvent e;
        synchronized (queue) {
          e = queue.pollFirst();
        }
        if (e == null) {
          return;
        }
        WatchFaults f = faults;
        if (f.dropChance() > 0 && env.random().nextDouble() < f.dropChance()) {
          boolean compactedDrop = env.random().nextDouble() < f.compactedShare();
          ending =
              Optional.of(
                  compactedDrop
                      ? () -> listener.onCompacted(compactedRevision())
                      : () -> listener.onClosed("connection dropped (simulated)"));
          finish();
          return;
        }
        if (caughtUp >= 0 && e.revision() > caughtUp) {
          tellCaughtUp(); // a live event never comes before the word that the replay is done
        }
        listener.onEvent(e);
        if (caughtUpDue && !replayPending()) {
          tellCaughtUp();
        }
      } finally {
        delivery.unlock();
      }
    }

    void drop(boolean asCompacted) {
      end(asCompacted, asCompacted ? compactedRevision() : 0);
    }

    /**
     * Ends the watch at its next delivery, which is scheduled now, ahead of what it still holds.
     */
    void end(boolean asCompacted, long compactedRev) {
      delivery.lock();
      try {
        if (over || ending.isPresent()) {
          return;
        }
        ending =
            Optional.of(
                asCompacted
                    ? () -> listener.onCompacted(compactedRev)
                    : () -> listener.onClosed("watch dropped (simulated)"));
      } finally {
        delivery.unlock();
      }
      env.execute(this::deliverOne);
    }

    private void finish() {
      Runnable tell = ending.orElseThrow();
      over = true;
      watches.remove(this);
      synchronized (queue) {
        queue.clear();
      }
      tell.run();
    }

    @Override
    public void close() {
      // Holding the delivery lock means no delivery is running (re-entrant for a listener that
      // closes its own watch).
      delivery.lock();
      try {
        over = true;
        watches.remove(this);
      } finally {
        delivery.unlock();
      }
    }
  }
}
