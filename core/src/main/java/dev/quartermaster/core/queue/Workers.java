package dev.quartermaster.core.queue;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.Env.Cancellable;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Drains a {@link WorkQueue} by running a handler for each key it hands out, at most {@code count}
 * at a time, on {@link Env#execute} tasks. A task that finishes a key goes on to the next ready
 * one, up to {@link Env#tasksPerTurn} keys: one in the simulation, so that anything may interleave
 * between two keys; several in production, where each turn is a thread started.
 *
 * <p>No thread waits for work: the queue signals when a key is ready and a finished run looks for
 * the next, so the same code runs on virtual threads in production and step by step under a
 * deterministic env. The queue's processing set guarantees one key never runs twice at once; the
 * handler's {@link Result} decides whether the key is forgotten or retried. A handler that throws
 * is retried with backoff, as if it had returned {@link Result.Requeue}.
 */
public final class Workers<K> {

  private static final System.Logger LOG = System.getLogger(Workers.class.getName());

  private final Env env;
  private final WorkQueue<K> queue;
  private final int count;
  private final Function<? super K, Result> handler;
  private final int keysPerTurn;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<Runnable> idleCallbacks = new ArrayList<>();
  private volatile Cancellable subscription = () -> false;
  private int inFlight;
  private long failures;
  private boolean stopped;

  private Workers(Env env, WorkQueue<K> queue, int count, Function<? super K, Result> handler) {
    this.env = env;
    this.queue = queue;
    this.count = count;
    this.handler = handler;
    this.keysPerTurn = Math.max(1, env.tasksPerTurn());
  }

  /** Starts draining {@code queue} with up to {@code count} concurrent runs of {@code handler}. */
  public static <K> Workers<K> start(
      Env env, WorkQueue<K> queue, int count, Function<? super K, Result> handler) {
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(handler, "handler");
    if (count < 1) {
      throw new IllegalArgumentException("count must be >= 1: " + count);
    }
    Workers<K> workers = new Workers<>(env, queue, count, handler);
    // Subscribed only once built: the listener list publishes it safely to other threads.
    workers.subscription = queue.onReady(workers::dispatch);
    workers.dispatch(); // keys added before we subscribed
    return workers;
  }

  /** Starts no new runs; runs in flight finish. Keys stay in the queue. */
  public void stop() {
    subscription.cancel();
    lock.lock();
    try {
      stopped = true;
    } finally {
      lock.unlock();
    }
    fireIdleCallbacksIfIdle();
  }

  /** Handler runs started and not yet finished. */
  public int inFlight() {
    lock.lock();
    try {
      return inFlight;
    } finally {
      lock.unlock();
    }
  }

  /** Handler runs that threw. */
  public long failures() {
    lock.lock();
    try {
      return failures;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code callback} once, as soon as no run is in flight and no key is ready (or, once
   * stopped, no run is in flight); at once if that is already so. Delayed keys don't count.
   */
  public void whenIdle(Runnable callback) {
    Objects.requireNonNull(callback, "callback");
    lock.lock();
    try {
      idleCallbacks.add(callback);
    } finally {
      lock.unlock();
    }
    fireIdleCallbacksIfIdle();
  }

  private void dispatch() {
    List<K> toRun = new ArrayList<>();
    lock.lock();
    try {
      while (!stopped && inFlight < count) {
        Optional<K> key = queue.poll();
        if (key.isEmpty()) {
          break;
        }
        inFlight++;
        toRun.add(key.get());
      }
    } finally {
      lock.unlock();
    }
    for (K key : toRun) {
      env.execute(() -> run(key));
    }
  }

  /** Runs {@code first}, then further ready keys while the turn lasts. */
  private void run(K first) {
    var key = Optional.of(first);
    try {
      for (int turn = 1; key.isPresent(); turn++) {
        runOne(key.get());
        key = turn < keysPerTurn ? nextInTurn() : Optional.empty();
      }
    } finally {
      lock.lock();
      try {
        inFlight--;
      } finally {
        lock.unlock();
      }
      dispatch();
      fireIdleCallbacksIfIdle();
    }
  }

  /**
   * The next ready key for the running task, which keeps its place in {@code inFlight}; empty once
   * stopped.
   */
  private Optional<K> nextInTurn() {
    lock.lock();
    try {
      return stopped ? Optional.empty() : queue.poll();
    } finally {
      lock.unlock();
    }
  }

  private void runOne(K key) {
    Result result;
    try {
      result = Objects.requireNonNull(handler.apply(key), "handler returned null");
    } catch (RuntimeException e) {
      boolean stopping;
      lock.lock();
      try {
        failures++;
        stopping = stopped;
      } finally {
        lock.unlock();
      }
      // A handler still running when its workers stop meets what closes after them (the store):
      // that is the shutdown, not a failure to warn of.
      LOG.log(
          stopping ? Level.DEBUG : Level.WARNING,
          () ->
              "handler failed for "
                  + key
                  + (stopping ? " while stopping" : "; retrying with backoff"),
          e);
      result = Result.requeue();
    }
    try {
      switch (result) {
        case Result.Done _ -> queue.forget(key);
        case Result.Requeue _ -> queue.addRateLimited(key);
        case Result.RequeueAfter(var delay) -> {
          queue.forget(key);
          queue.addAfter(key, delay);
        }
      }
    } finally {
      queue.done(key);
    }
  }

  private void fireIdleCallbacksIfIdle() {
    List<Runnable> due;
    lock.lock();
    try {
      boolean idle = inFlight == 0 && (stopped || queue.len() == 0);
      if (!idle || idleCallbacks.isEmpty()) {
        return;
      }
      due = List.copyOf(idleCallbacks);
      idleCallbacks.clear();
    } finally {
      lock.unlock();
    }
    due.forEach(Runnable::run);
  }
}
