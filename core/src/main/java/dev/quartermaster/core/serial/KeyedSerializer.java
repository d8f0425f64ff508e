package dev.quartermaster.core.serial;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.Env.Cancellable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs asynchronous calls one at a time per key, in submission order, without holding a thread
 * while they wait. It replaces Nomad's {@code serializedControllerRPC} (one future per plugin, on
 * whose completion every waiter wakes and races for the slot), which has no order, no way for a
 * waiter to give up, and no per-key bookkeeping a metric could read.
 *
 * <p>The contract:
 *
 * <ul>
 *   <li><b>One at a time, FIFO per key.</b> A key's <i>slot</i> is held from the moment a call is
 *       granted it until the stage that call returned completes. Calls for one key are granted the
 *       slot, and started, in the order in which their {@link #submit}s took effect (one that
 *       returned before another was called took effect first), skipping calls abandoned or failed
 *       by {@link #close} before they started. Calls for different keys never wait for each other.
 *       Keys are compared with {@code equals}.
 *   <li><b>Starting.</b> A call is started (its supplier called) in its own {@link Env#execute}
 *       task, both when {@code submit} finds the key idle and when the previous call's stage
 *       completes; never inside {@code submit}, {@code cancel} or {@code close}, and never on the
 *       thread that completed the previous call. That thread belongs to whoever completed the stage
 *       (a storage client's I/O thread, a test), and running the next supplier there would borrow
 *       it, and would recurse once per queued call when calls complete synchronously. Under a
 *       {@link dev.quartermaster.core.env.DeterministicEnv} every start is an ordinary env task, so
 *       a run stays on the env's thread and replays from its seed.
 *   <li><b>No thread waits.</b> A waiting call is an entry in its key's queue; the only thing that
 *       moves it is the completion of the call before it. Ten thousand waiters cost ten thousand
 *       queue entries and no env tasks.
 *   <li><b>Outcome.</b> The returned future completes with the outcome of the call's stage, after
 *       the slot is released (so a continuation sees its own call no longer {@link #inFlight}), on
 *       the thread that completed the stage. A supplier that throws, or returns {@code null}, fails
 *       the returned future with that exception (a {@link NullPointerException}) and releases the
 *       slot at once; so does a stage that completes exceptionally.
 *   <li><b>Giving up.</b> A caller gives up by completing the returned future itself, usually by
 *       {@link CompletableFuture#cancel} or by failing it from a deadline timer. If the call has
 *       not started, it leaves the queue, it is never started, and it counts as cancelled. If it
 *       has started, nothing else changes: the slot stays held until the call's own stage
 *       completes, because the storage system may still be doing the call, and a second call must
 *       not overlap it.
 *   <li><b>Closing.</b> {@link #close} is for a leader that was deposed: every call that has not
 *       started (waiting, or granted and not yet started) fails at once with the given reason and
 *       is never started, and every later {@code submit} fails at once with it, until {@link
 *       #reopen}. Calls already started are not interrupted, and keep their slots until their
 *       stages complete. One serializer lives across leadership terms instead of one per term
 *       because a call from the old term may still be in flight when this process leads again; a
 *       fresh serializer would start the new term's call for that key beside it.
 *   <li><b>Clean-up.</b> A key with no call holding its slot has no entry, so keys that come and go
 *       do not make the map grow.
 * </ul>
 *
 * <p>Every accepted submit ends in exactly one of started, cancelled or failed-on-close; {@link
 * #stats} counts them. {@link #onStart} tells listeners of each start, in start order. Thread-safe;
 * no user code (supplier, listener, continuation) runs under the lock.
 */
public final class KeyedSerializer<K> implements Serializer<K> {

  /**
   * A call was started: its key, the sequence number of its submit (counted across all keys from 0,
   * in the order in which submits took effect) and its place in the start order (from 0).
   */
  public record Started<K>(K key, long submission, long order) {}

  /**
   * Totals since creation, and the present state: keys whose slot is held and calls waiting. {@code
   * failed} is the part of {@code completed} that ended exceptionally; {@code rejected} counts
   * submits refused while closed, which are not in {@code submitted}.
   */
  public record Stats(
      long submitted,
      long started,
      long completed,
      long failed,
      long cancelled,
      long failedOnClose,
      long rejected,
      int heldKeys,
      int waiting) {}

  private enum State {
    /** In its key's queue. */
    WAITING,
    /** Holds the slot; its start task is on the env. */
    GRANTED,
    /** Its supplier was called; holds the slot until its stage completes. */
    STARTED,
    /** Given up by the caller or failed by close before it started; never started. */
    ABANDONED
  }

  private final Env env;
  private final ReentrantLock lock = new ReentrantLock();

  /** Only keys whose slot is held; removed when the slot is released with nobody waiting. */
  private final Map<K, Slot> held = new HashMap<>();

  private final List<Consumer<? super Started<K>>> startListeners = new CopyOnWriteArrayList<>();

  /** Why submits are refused; null while open (internal only, never handed out as null). */
  private Throwable closedBy;

  private long submitted;
  private long started;
  private long completed;
  private long failed;
  private long cancelled;
  private long failedOnClose;
  private long rejected;
  private int waiting;

  /** A serializer whose calls start on {@code env}. */
  public KeyedSerializer(Env env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  /**
   * Queues {@code call} behind every call submitted earlier for {@code key}; see the class comment.
   * The returned future can be cancelled; when closed, it is already failed.
   */
  @Override
  public <T> CompletableFuture<T> submit(K key, Supplier<? extends CompletionStage<T>> call) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(call, "call");
    CompletableFuture<T> result = new CompletableFuture<>();
    Waiter<T> waiter = null;
    Throwable refusal = null;
    boolean grantedHere = false;
    lock.lock();
    try {
      if (closedBy != null) {
        rejected++;
        refusal = closedBy;
      } else {
        waiter = new Waiter<>(key, submitted++, call, result);
        Slot slot = held.get(key);
        if (slot == null) {
          held.put(key, new Slot(waiter));
          waiter.state = State.GRANTED;
          grantedHere = true;
        } else {
          slot.queue.addLast(waiter);
          waiting++;
        }
      }
    } finally {
      lock.unlock();
    }
    if (refusal != null) {
      result.completeExceptionally(refusal);
      return result;
    }
    Waiter<T> submittedWaiter = waiter;
    // Registered after queueing: a waiter that has started or been failed by close by now makes
    // this run at once and find nothing to do.
    result.whenComplete((value, failure) -> abandon(submittedWaiter));
    if (grantedHere) {
      env.execute(() -> start(submittedWaiter));
    }
    return result;
  }

  /** Whether a call for {@code key} holds its slot: running, or granted and about to start. */
  public boolean inFlight(K key) {
    Objects.requireNonNull(key, "key");
    lock.lock();
    try {
      return held.containsKey(key);
    } finally {
      lock.unlock();
    }
  }

  /** Calls for {@code key} waiting behind the one holding its slot. */
  public int waiting(K key) {
    Objects.requireNonNull(key, "key");
    lock.lock();
    try {
      Slot slot = held.get(key);
      return slot == null ? 0 : slot.queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** A consistent snapshot of the totals and the present state. */
  public Stats stats() {
    lock.lock();
    try {
      return new Stats(
          submitted,
          started,
          completed,
          failed,
          cancelled,
          failedOnClose,
          rejected,
          held.size(),
          waiting);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Calls {@code listener} as each call starts, on the starting thread, just before its supplier
   * and outside the lock; calls for one key are reported in their start order. A listener that
   * throws fails that call as if its supplier had thrown, and the supplier is then not called.
   */
  public Cancellable onStart(Consumer<? super Started<K>> listener) {
    Objects.requireNonNull(listener, "listener");
    startListeners.add(listener);
    return () -> startListeners.remove(listener);
  }

  /**
   * Fails every call that has not started with {@code reason}, at once, and refuses later submits
   * with it until {@link #reopen}. Started calls go on and keep their slots. Closing again replaces
   * the reason.
   */
  public void close(Throwable reason) {
    Objects.requireNonNull(reason, "reason");
    List<Waiter<?>> failing = new ArrayList<>();
    lock.lock();
    try {
      closedBy = reason;
      for (Slot slot : held.values()) {
        if (slot.holder.state == State.GRANTED) {
          // Its start task will find it abandoned and release the slot without calling it.
          slot.holder.state = State.ABANDONED;
          failing.add(slot.holder);
        }
        for (Waiter<?> waiter : slot.queue) {
          waiter.state = State.ABANDONED;
          failing.add(waiter);
        }
        waiting -= slot.queue.size();
        slot.queue.clear();
      }
      failedOnClose += failing.size();
    } finally {
      lock.unlock();
    }
    for (Waiter<?> waiter : failing) {
      waiter.result.completeExceptionally(reason);
    }
  }

  /** Accepts submits again after {@link #close}; returns whether it was closed. */
  public boolean reopen() {
    lock.lock();
    try {
      boolean wasClosed = closedBy != null;
      closedBy = null;
      return wasClosed;
    } finally {
      lock.unlock();
    }
  }

  /** Whether submits are refused, between {@link #close} and {@link #reopen}. */
  public boolean isClosed() {
    lock.lock();
    try {
      return closedBy != null;
    } finally {
      lock.unlock();
    }
  }

  /** The caller completed the returned future: a call that has not started never will. */
  private void abandon(Waiter<?> waiter) {
    lock.lock();
    try {
      switch (waiter.state) {
        case WAITING -> {
          held.get(waiter.key).queue.remove(waiter);
          waiting--;
          waiter.state = State.ABANDONED;
          cancelled++;
        }
        case GRANTED -> {
          // Its start task will release the slot without calling it.
          waiter.state = State.ABANDONED;
          cancelled++;
        }
        case STARTED, ABANDONED -> {
          // Started calls keep the slot until their stage completes; close already counted it.
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** The start task of a waiter granted the slot. */
  private <T> void start(Waiter<T> waiter) {
    Started<K> event;
    lock.lock();
    try {
      if (waiter.state != State.GRANTED) {
        event = null;
      } else {
        waiter.state = State.STARTED;
        event = new Started<>(waiter.key, waiter.submission, started++);
      }
    } finally {
      lock.unlock();
    }
    if (event == null) {
      release(waiter.key, false, false);
      return;
    }
    CompletionStage<T> stage;
    try {
      for (Consumer<? super Started<K>> listener : startListeners) {
        listener.accept(event);
      }
      stage = Objects.requireNonNull(waiter.call.get(), "the call returned a null stage");
    } catch (Throwable thrown) {
      // Whatever the supplier throws, the slot must be released, or the key is stuck for good.
      stage = CompletableFuture.failedFuture(thrown);
    }
    stage.whenComplete((value, failure) -> finish(waiter, value, failure));
  }

  private <T> void finish(Waiter<T> waiter, T value, Throwable failure) {
    release(waiter.key, true, failure != null);
    if (failure == null) {
      waiter.result.complete(value);
    } else {
      waiter.result.completeExceptionally(failure);
    }
  }

  /**
   * Hands the slot of {@code key} to its oldest waiter, or drops the key when nobody waits. {@code
   * ran} tells a call that finished (counted as completed, and as failed when {@code failedCall})
   * from one that was abandoned before it started.
   */
  private void release(K key, boolean ran, boolean failedCall) {
    Waiter<?> next = null;
    lock.lock();
    try {
      if (ran) {
        completed++;
        if (failedCall) {
          failed++;
        }
      }
      Slot slot = held.get(key);
      if (slot.queue.isEmpty()) {
        held.remove(key);
      } else {
        next = slot.queue.removeFirst();
        waiting--;
        next.state = State.GRANTED;
        slot.holder = next;
      }
    } finally {
      lock.unlock();
    }
    if (next != null) {
      Waiter<?> granted = next;
      env.execute(() -> start(granted));
    }
  }

  private final class Slot {
    Waiter<?> holder;

    /** Waiters in submission order; a set so that an abandoned one leaves in constant time. */
    final LinkedHashSet<Waiter<?>> queue = new LinkedHashSet<>();

    Slot(Waiter<?> holder) {
      this.holder = holder;
    }
  }

  /** One submitted call; identity equality, so equal keys or suppliers never merge two. */
  private final class Waiter<T> {
    final K key;
    final long submission;
    final Supplier<? extends CompletionStage<T>> call;
    final CompletableFuture<T> result;
    State state = State.WAITING;

    Waiter(
        K key,
        long submission,
        Supplier<? extends CompletionStage<T>> call,
        CompletableFuture<T> result) {
      this.key = key;
      this.submission = submission;
      this.call = call;
      this.result = result;
    }
  }
}
