package dev.quartermaster.core.env;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs submitted tasks one at a time, in submission order, on an {@link Env}.
 *
 * <p>Callbacks that arrive from many threads (watch streams, timers) submit here to get a single
 * logical thread without owning one. Each task is its own {@link Env#execute} turn, so under
 * {@link DeterministicEnv} other work can interleave between two tasks, as it could in production.
 * A task that throws does not stop the ones after it.
 */
public final class SerialExecutor {

  private final Env env;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private boolean scheduled;

  /** A serial executor whose tasks run on {@code env}. */
  public SerialExecutor(Env env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  /** Queues {@code task} to run after every task submitted before it. */
  public void submit(Runnable task) {
    Objects.requireNonNull(task, "task");
    boolean start;
    lock.lock();
    try {
      tasks.addLast(task);
      start = !scheduled;
      scheduled = true;
    } finally {
      lock.unlock();
    }
    if (start) {
      env.execute(this::runOne);
    }
  }

  private void runOne() {
    Runnable task;
    lock.lock();
    try {
      task = tasks.pollFirst();
    } finally {
      lock.unlock();
    }
    try {
      if (task != null) {
        task.run();
      }
    } finally {
      boolean more;
      lock.lock();
      try {
        more = !tasks.isEmpty();
        scheduled = more;
      } finally {
        lock.unlock();
      }
      if (more) {
        env.execute(this::runOne);
      }
    }
  }
}
