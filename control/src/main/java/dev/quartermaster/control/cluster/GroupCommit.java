package dev.quartermaster.control.cluster;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Commits the writes of concurrent workers together: while one batch is in the store, the decisions
 * that arrive queue up, and the next batch takes them all (up to {@link #MAX_WRITES} writes, each
 * object once) in one {@link ApiClient#commit} — one transaction and one fsync for many decisions
 * instead of one each.
 *
 * <p>Contract: {@link #commit} returns exactly what {@code api.commit(writes)} would have returned
 * for the caller's own writes alone, or throws what it would have thrown. A caller's writes are
 * applied all or none, never split across transactions. If a combined batch fails on one decision's
 * own account (its compare-and-set lost, its write is invalid: the registry says which write,
 * {@link ApiException#failedWrite}), that decision is committed alone (and fails as it would have
 * alone) and the others are committed again together; if it fails otherwise (a rule refused a write
 * given the batch's other writes), each decision in it is committed on its own. So one bad decision
 * never fails the others, and a stale one does not cost the rest their batch. No thread waits for
 * work: the first caller to find no batch in flight commits, for itself and whoever queued
 * meanwhile, until the queue is empty.
 */
public final class GroupCommit {
  /** Writes per transaction at most: etcd refuses a transaction of more than 128 operations. */
  public static final int MAX_WRITES = 32;

  private record Key(Kind<?> kind, String name) {}

  private static final class Entry {
    final List<Write> writes;
    final Set<Key> keys = new HashSet<>();
    final CompletableFuture<List<ApiObject>> done = new CompletableFuture<>();

    Entry(List<Write> writes) {
      this.writes = List.copyOf(writes);
      writes.forEach(w -> keys.add(new Key(Kinds.of(w.object()), w.object().metadata().name())));
    }
  }

  private final ApiClient api;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Entry> queue = new ArrayDeque<>();
  private boolean committing;
  private final LongAdder transactions = new LongAdder();
  private final LongAdder decisions = new LongAdder();

  public GroupCommit(ApiClient api) {
    this.api = api;
  }

  /** Applies {@code writes} atomically, possibly in one transaction with other callers' writes. */
  public List<ApiObject> commit(List<Write> writes) {
    var mine = new Entry(writes);
    boolean lead;
    lock.lock();
    try {
      queue.add(mine);
      lead = !committing;
      committing = true;
    } finally {
      lock.unlock();
    }
    if (lead) {
      drain();
    }
    try {
      return mine.done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** Decisions queued behind the batch in flight. */
  public int waiting() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Transactions committed so far, and the decisions they carried: their ratio is the batching. */
  public long transactions() {
    return transactions.sum();
  }

  public long decisions() {
    return decisions.sum();
  }

  private void drain() {
    while (true) {
      List<Entry> batch;
      lock.lock();
      try {
        if (queue.isEmpty()) {
          committing = false;
          return;
        }
        batch = take();
      } finally {
        lock.unlock();
      }
      run(batch);
    }
  }

  /**
   * The queue's head, and every later entry that fits and writes no object already in the batch.
   */
  private List<Entry> take() {
    var batch = new ArrayList<Entry>();
    var keys = new HashSet<Key>();
    int writes = 0;
    // A store with a smaller limit (SimStore's, set by a test) takes fewer: joined decisions over
    // it would each be committed alone after the joined one was refused.
    int most = Math.min(MAX_WRITES, api.writesPerCommit());
    for (var it = queue.iterator(); it.hasNext(); ) {
      var e = it.next();
      boolean first = batch.isEmpty();
      if (!first && (writes + e.writes.size() > most || e.keys.stream().anyMatch(keys::contains))) {
        continue;
      }
      it.remove();
      batch.add(e);
      keys.addAll(e.keys);
      writes += e.writes.size();
    }
    return batch;
  }

  private void run(List<Entry> batch) {
    decisions.add(batch.size());
    var rest = new ArrayList<>(batch);
    while (rest.size() > 1) {
      var all = new ArrayList<Write>();
      rest.forEach(e -> all.addAll(e.writes));
      try {
        transactions.increment();
        var written = api.commit(all);
        int at = 0;
        for (var e : rest) {
          e.done.complete(written.subList(at, at + e.writes.size()));
          at += e.writes.size();
        }
        return;
      } catch (ApiException e) {
        if (e.failedWrite().isEmpty()) {
          break; // not one write's own failure: each decision is tried alone and meets its own fate
        }
        var failed = holding(rest, e.failedWrite().getAsInt());
        rest.remove(failed);
        alone(failed);
      } catch (RuntimeException e) {
        rest.forEach(x -> x.done.completeExceptionally(e));
        return;
      }
    }
    rest.forEach(this::alone);
  }

  /** The entry of {@code batch} whose writes include the combined batch's write {@code index}. */
  private static Entry holding(List<Entry> batch, int index) {
    int at = 0;
    for (var e : batch) {
      at += e.writes.size();
      if (index < at) {
        return e;
      }
    }
    throw new IllegalArgumentException("write " + index + " is past the batch's " + at + " writes");
  }

  private void alone(Entry e) {
    try {
      transactions.increment();
      e.done.complete(api.commit(e.writes));
    } catch (RuntimeException x) {
      e.done.completeExceptionally(x);
    }
  }
}
