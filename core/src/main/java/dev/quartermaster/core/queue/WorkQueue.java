package dev.quartermaster.core.queue;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.Env.Cancellable;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queue of keys to reconcile, in which a key is queued at most once and handed to at most one
 * worker at a time.
 *
 * <ul>
 *   <li>{@link #add} of a key already waiting does nothing: many changes, one reconcile.
 *   <li>{@link #poll} (or {@link #take}) hands out the oldest waiting key and marks it processing.
 *   <li>{@link #add} of a key being processed marks it dirty; {@link #done} then queues it again,
 *       so a change seen mid-reconcile is never lost and never reconciled concurrently.
 *   <li>{@link #addAfter} and {@link #addRateLimited} add later, through the {@link Env}'s timers.
 * </ul>
 *
 * <p>Thread-safe. Under a single-threaded env, consume it with {@link #poll} (as {@link Workers}
 * does), never with the blocking {@link #take}.
 */
public final class WorkQueue<K> {

  private final Env env;
  private final RateLimiter<K> rateLimiter;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition nonEmpty = lock.newCondition();
  private final ArrayDeque<K> ready = new ArrayDeque<>();

  /** Keys that need processing: every ready key, plus processing keys added again. */
  private final Set<K> dirty = new HashSet<>();

  private final Set<K> processing = new HashSet<>();
  private final Map<K, Delayed> delayed = new HashMap<>();
  private final List<Runnable> readyListeners = new CopyOnWriteArrayList<>();
  private boolean shutDown;
  private long delaySequence;
  private long adds;
  private long retries;

  private record Delayed(long due, long id, Cancellable timer) {}

  /** A queue that retries through {@code rateLimiter} and keeps time with {@code env}. */
  public WorkQueue(Env env, RateLimiter<K> rateLimiter) {
    this.env = Objects.requireNonNull(env, "env");
    this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
  }

  /** A queue with {@link RateLimiter#controllerDefault}. */
  public static <K> WorkQueue<K> create(Env env) {
    return new WorkQueue<>(env, RateLimiter.controllerDefault(env));
  }

  /** Queues {@code key} unless it is already waiting; ignored after {@link #shutDown}. */
  public void add(K key) {
    Objects.requireNonNull(key, "key");
    lock.lock();
    try {
      if (shutDown || !dirty.add(key)) {
        return;
      }
      adds++;
      if (processing.contains(key)) {
        return; // re-queued by done()
      }
      ready.addLast(key);
      nonEmpty.signal();
    } finally {
      lock.unlock();
    }
    notifyReady();
  }

  /**
   * Adds {@code key} once {@code delay} has passed. While a key waits, a later deadline is ignored
   * and an earlier one replaces it.
   */
  public void addAfter(K key, Duration delay) {
    Objects.requireNonNull(key, "key");
    if (delay.isNegative() || delay.isZero()) {
      add(key);
      return;
    }
    lock.lock();
    try {
      if (shutDown) {
        return;
      }
      long due = saturatedAdd(env.nanoTime(), delay);
      Delayed waiting = delayed.get(key);
      if (waiting != null && waiting.due() <= due) {
        return;
      }
      if (waiting != null) {
        waiting.timer().cancel();
      }
      long id = delaySequence++;
      // Scheduled under the lock, so the timer cannot fire before its entry is recorded.
      Cancellable timer = env.schedule(delay, () -> fire(key, id));
      delayed.put(key, new Delayed(due, id, timer));
    } finally {
      lock.unlock();
    }
  }

  /** Adds {@code key} after the wait its rate limiter gives; counts as a retry. */
  public void addRateLimited(K key) {
    Objects.requireNonNull(key, "key");
    lock.lock();
    try {
      if (shutDown) {
        return;
      }
      retries++;
    } finally {
      lock.unlock();
    }
    addAfter(key, rateLimiter.when(key));
  }

  /** Resets {@code key}'s backoff; call it when the key was handled successfully. */
  public void forget(K key) {
    rateLimiter.forget(key);
  }

  /** Rate-limited retries of {@code key} since it was last forgotten. */
  public int numRequeues(K key) {
    return rateLimiter.numRequeues(key);
  }

  /** Hands out the oldest ready key and marks it processing; empty when none is ready. */
  public Optional<K> poll() {
    lock.lock();
    try {
      return Optional.ofNullable(next());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Like {@link #poll} but waits for a key; empty once the queue is shut down and drained. Blocks
   * the calling thread, so never use it under a single-threaded env.
   */
  public Optional<K> take() throws InterruptedException {
    lock.lock();
    try {
      while (ready.isEmpty() && !shutDown) {
        nonEmpty.await();
      }
      return Optional.ofNullable(next());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends the processing of {@code key}, which must have been handed out; if it was added again
   * meanwhile, it is queued again now.
   */
  public void done(K key) {
    Objects.requireNonNull(key, "key");
    lock.lock();
    try {
      if (!processing.remove(key)) {
        throw new IllegalStateException("done(" + key + ") but the key is not being processed");
      }
      if (!dirty.contains(key)) {
        return;
      }
      ready.addLast(key);
      nonEmpty.signal();
    } finally {
      lock.unlock();
    }
    notifyReady();
  }

  /**
   * Stops accepting keys and cancels delayed adds. Keys already ready are still handed out, so
   * workers can drain; {@link #take} returns empty once none is left.
   */
  public void shutDown() {
    lock.lock();
    try {
      shutDown = true;
      delayed.values().forEach(d -> d.timer().cancel());
      delayed.clear();
      nonEmpty.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@link #shutDown} was called. */
  public boolean isShutDown() {
    lock.lock();
    try {
      return shutDown;
    } finally {
      lock.unlock();
    }
  }

  /** Keys ready to be handed out (the queue's depth). */
  public int len() {
    lock.lock();
    try {
      return ready.size();
    } finally {
      lock.unlock();
    }
  }

  /** Keys handed out and not yet done. */
  public int processingCount() {
    lock.lock();
    try {
      return processing.size();
    } finally {
      lock.unlock();
    }
  }

  /** Keys waiting for an {@link #addAfter} deadline. */
  public int delayedCount() {
    lock.lock();
    try {
      return delayed.size();
    } finally {
      lock.unlock();
    }
  }

  /** Adds that were not absorbed by a key already waiting. */
  public long adds() {
    lock.lock();
    try {
      return adds;
    } finally {
      lock.unlock();
    }
  }

  /** Calls to {@link #addRateLimited}. */
  public long retries() {
    lock.lock();
    try {
      return retries;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Calls {@code listener} each time a key becomes ready, outside the queue's lock, so that a
   * consumer that does not block in {@link #take} knows when to {@link #poll}.
   */
  public Cancellable onReady(Runnable listener) {
    Objects.requireNonNull(listener, "listener");
    readyListeners.add(listener);
    return () -> readyListeners.remove(listener);
  }

  private K next() {
    K key = ready.pollFirst();
    if (key != null) {
      dirty.remove(key);
      processing.add(key);
    }
    return key;
  }

  private void fire(K key, long id) {
    lock.lock();
    try {
      Delayed waiting = delayed.get(key);
      if (waiting == null || waiting.id() != id) {
        return; // superseded by an earlier deadline, or shut down
      }
      delayed.remove(key);
    } finally {
      lock.unlock();
    }
    add(key);
  }

  private void notifyReady() {
    for (Runnable listener : readyListeners) {
      listener.run();
    }
  }

  private static long saturatedAdd(long nanos, Duration delay) {
    try {
      return Math.addExact(nanos, delay.toNanos());
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE;
    }
  }
}
