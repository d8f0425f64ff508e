package dev.quartermaster.core.env;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs submitted tasks one at a time, in submission order, on an {@link Env}.
 *
 * <p>Callbacks that arrive from many threads (watch streams, timers) submit here to get a single
 * logical thread without owning one. A turn ({@link Env#execute}) runs up to {@link
 * Env#tasksPerTurn} queued tasks: one under {@link DeterministicEnv}, so that other work can
 * interleave between any two tasks, as it could in production; several under {@link SystemEnv},
 * where a turn is a thread started. A task that throws ends its turn, and does not stop the ones
 * after it: they run in the next.
 */
public final class SerialExecutor {

  private final Env env;
  private final int tasksPerTurn;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private boolean scheduled;

  /** A serial executor whose tasks run on {@code env}. */
  public SerialExecutor(Env env) {
    this.env = Objects.requireNonNull(env, "env");
    this.tasksPerTurn = Math.max(1, env.tasksPerTurn());
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
      env.execute(this::runTurn);
    }
  }

  private void runTurn() {
    boolean idle = false;
    try {
      for (int i = 0; i < tasksPerTurn && !idle; i++) {
        var task = next();
        if (task == null) {
          idle = true; // the queue ran dry: the next submit starts a turn
        } else {
          task.run();
        }
      }
    } finally {
      if (!idle) {
        boolean more;
        lock.lock();
        try {
          more = !tasks.isEmpty();
          scheduled = more;
        } finally {
          lock.unlock();
        }
        if (more) {
          env.execute(this::runTurn);
        }
      }
    }
  }

  /** The next task, or null after marking the executor idle when there is none. */
  private Runnable next() {
    lock.lock();
    try {
      var task = tasks.pollFirst();
      if (task == null) {
        scheduled = false;
      }
      return task;
    } finally {
      lock.unlock();
    }
  }
}
