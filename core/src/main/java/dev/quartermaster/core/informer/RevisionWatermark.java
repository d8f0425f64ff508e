package dev.quartermaster.core.informer;

import dev.quartermaster.core.env.Env.Cancellable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A revision that only moves forward, with one-shot callbacks for when it reaches a given value.
 * Thread-safe; callbacks run outside its lock, in the thread that raised it (or that asked, when
 * already reached).
 */
final class RevisionWatermark {

  private record Waiter(long revision, long sequence, Runnable callback) {}

  private final ReentrantLock lock = new ReentrantLock();
  private final PriorityQueue<Waiter> waiters =
      new PriorityQueue<>(
          (a, b) ->
              a.revision() != b.revision()
                  ? Long.compare(a.revision(), b.revision())
                  : Long.compare(a.sequence(), b.sequence()));
  private volatile long revision;
  private long sequence;

  /** The highest revision reached so far. */
  long get() {
    return revision;
  }

  /** Raises the mark to {@code reached} if that is higher, then runs the callbacks now due. */
  void raise(long reached) {
    List<Runnable> due = new ArrayList<>();
    lock.lock();
    try {
      if (reached > revision) {
        revision = reached;
      }
      while (!waiters.isEmpty() && waiters.peek().revision() <= revision) {
        due.add(waiters.poll().callback());
      }
    } finally {
      lock.unlock();
    }
    due.forEach(Runnable::run);
  }

  /** Runs {@code callback} once the mark reaches {@code target}; at once if it has. */
  Cancellable whenReached(long target, Runnable callback) {
    Objects.requireNonNull(callback, "callback");
    lock.lock();
    try {
      if (revision < target) {
        Waiter waiter = new Waiter(target, sequence++, callback);
        waiters.add(waiter);
        return () -> remove(waiter);
      }
    } finally {
      lock.unlock();
    }
    callback.run();
    return () -> false;
  }

  private boolean remove(Waiter waiter) {
    lock.lock();
    try {
      return waiters.remove(waiter);
    } finally {
      lock.unlock();
    }
  }
}
