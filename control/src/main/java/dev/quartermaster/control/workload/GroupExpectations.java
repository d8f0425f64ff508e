package dev.quartermaster.control.workload;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Read-your-own-writes for worker groups. After the controller creates or deletes a group's tasks
 * it records the names it touched and the highest store revision its writes got; the group is not
 * acted on again until the task informer has caught up to that revision, so the next decision sees
 * every one of its own writes. Deterministic names make a create from a stale view fail loudly
 * anyway; this keeps it from being tried.
 *
 * <p>Creates of a slow-start batch run concurrently ({@link #expectCreates}): until each has ended
 * (written, or failed) the group's revision is not known, so the gate stays shut while any is in
 * flight, whatever the informer shows.
 *
 * <p>If the informer does not catch up within the bound (a stuck watch), the caller stops trusting
 * the cache and reads live (counted in {@link #timeouts}). Keys are {@code <workload-uid>/<group>},
 * so a re-created workload starts clean. A key is only ever handled by one reconcile at a time
 * (work queue), which is what makes one mutable record per key safe.
 */
public final class GroupExpectations {

  /** Whether a group may be acted on. */
  public sealed interface Gate {
    /** The cache has seen our writes (or we made none). */
    record Open() implements Gate {}

    /** Still waiting for the cache to reach {@code revision}; {@code left} of the bound remains. */
    record Waiting(long revision, Duration left, Map<String, String> names) implements Gate {}

    /** Waited past the bound: read live. */
    record TimedOut(long revision, Map<String, String> names) implements Gate {}
  }

  /**
   * One key's expectation. {@code names} grows in place with each write of a slow-start batch (up
   * to hundreds): a copy per write was quadratic in the batch. It is a concurrent map because a
   * gate may read it while a create of the same batch records its write; a gate hands out a copy.
   */
  private record Pending(
      long revision, long sinceNanos, ConcurrentSkipListMap<String, String> names, int inFlight) {
    SortedMap<String, String> namesNow() {
      return Collections.unmodifiableSortedMap(new TreeMap<>(names));
    }
  }

  private final Duration bound;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong timeouts =
      new java.util.concurrent.atomic.AtomicLong();

  public GroupExpectations(Duration bound) {
    this.bound = bound;
  }

  /**
   * {@code n} creates of {@code key} are about to run concurrently: the gate stays shut until each
   * has ended.
   */
  public void expectCreates(String key, int n, long nowNanos) {
    pending.compute(
        key,
        (k, p) ->
            p == null
                ? new Pending(0, nowNanos, new ConcurrentSkipListMap<>(), n)
                : new Pending(p.revision(), p.sinceNanos(), p.names(), p.inFlight() + n));
  }

  /**
   * Records our write of {@code task} ({@code action}: create or delete) at {@code revision}; a
   * create ends one in flight.
   */
  public void wrote(String key, String task, String action, long revision, long nowNanos) {
    pending.compute(
        key,
        (k, p) -> {
          var names = p == null ? new ConcurrentSkipListMap<String, String>() : p.names();
          names.put(task, action);
          int inFlight =
              p == null ? 0 : Math.max(0, p.inFlight() - (action.equals("create") ? 1 : 0));
          return new Pending(
              Math.max(revision, p == null ? 0 : p.revision()),
              p == null ? nowNanos : p.sinceNanos(),
              names,
              inFlight);
        });
  }

  /** An expected create ended without a write (refused, or failed). */
  public void createEnded(String key) {
    pending.computeIfPresent(
        key,
        (k, p) ->
            new Pending(p.revision(), p.sinceNanos(), p.names(), Math.max(0, p.inFlight() - 1)));
  }

  /** Creates of {@code key} still in flight. */
  public int inFlight(String key) {
    var p = pending.get(key);
    return p == null ? 0 : p.inFlight();
  }

  /** Where {@code key} stands, given the informer's caught-up revision. */
  public Gate gate(String key, long syncedRevision, long nowNanos) {
    var p = pending.get(key);
    if (p == null) {
      return new Gate.Open();
    }
    if (p.inFlight() == 0 && syncedRevision >= p.revision()) {
      pending.remove(key, p);
      return new Gate.Open();
    }
    var waited = Duration.ofNanos(nowNanos - p.sinceNanos());
    if (waited.compareTo(bound) >= 0) {
      timeouts.incrementAndGet();
      return new Gate.TimedOut(p.revision(), p.namesNow());
    }
    return new Gate.Waiting(p.revision(), bound.minus(waited), p.namesNow());
  }

  /** Forgets {@code key}: after a live read, or when its workload is gone. */
  public void clear(String key) {
    pending.remove(key);
  }

  /** Forgets every key starting with {@code prefix}. */
  public void clearAll(String prefix) {
    pending.keySet().removeIf(k -> k.startsWith(prefix));
  }

  /** How many times a group's wait ran past the bound (a metric). */
  public long timeouts() {
    return timeouts.get();
  }
}
