package dev.quartermaster.core.env;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;

/**
 * An {@link Env} in virtual time, on one thread, from one seed: the same seed and the same calls
 * give the same run, so a failing simulation can be replayed.
 *
 * <p>Nothing happens by itself. Tasks wait in a queue ordered by due time and then by the order in
 * which they were scheduled (ties are FIFO), and run only when the owner calls {@link
 * #runUntilIdle}, {@link #advance}, {@link #runUntil} or {@link #runNext}. The clock moves only
 * there, jumping to each task's due time.
 *
 * <p>The env belongs to the thread that created it. Any use from another thread, including draws
 * from {@link #random()}, throws {@link IllegalStateException}: such a call means some logic
 * escaped the env, and the run would no longer replay.
 */
public final class DeterministicEnv implements Env {

  /** Where virtual time starts unless told otherwise. */
  public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

  /** Tasks run at one instant before we call it a livelock (a task re-executing itself). */
  private static final int MAX_TASKS_PER_INSTANT = 1_000_000;

  private static final Comparator<Timer> ORDER =
      Comparator.comparingLong((Timer t) -> t.due).thenComparingLong(t -> t.sequence);

  private final long seed;
  private final Instant start;
  private final Thread owner;
  private final RandomGenerator random;
  private final PriorityQueue<Timer> timers = new PriorityQueue<>(ORDER);
  private long nanos;
  private long sequence;
  private int pending;
  private int cancelledInHeap;
  private int tasksAtThisInstant;
  private boolean running;

  /** A new env at {@link #DEFAULT_START}, owned by the calling thread. */
  public DeterministicEnv(long seed) {
    this(seed, DEFAULT_START);
  }

  /** A new env whose virtual clock reads {@code start}, owned by the calling thread. */
  public DeterministicEnv(long seed, Instant start) {
    this.seed = seed;
    this.start = Objects.requireNonNull(start, "start");
    this.owner = Thread.currentThread();
    this.random = new OwnedRandom(new SplittableRandom(seed));
  }

  /** The seed this env was made from; print it with a failure so the run can be replayed. */
  public long seed() {
    return seed;
  }

  @Override
  public Instant now() {
    checkOwner();
    return start.plusNanos(nanos);
  }

  @Override
  public long nanoTime() {
    checkOwner();
    return nanos;
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    checkOwner();
    Objects.requireNonNull(task, "task");
    long delayNanos = Math.max(0, saturatedNanos(delay));
    long due = delayNanos > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : nanos + delayNanos;
    Timer timer = new Timer(due, sequence++, task);
    timers.add(timer);
    pending++;
    return timer;
  }

  @Override
  public void execute(Runnable task) {
    schedule(Duration.ZERO, task);
  }

  @Override
  public RandomGenerator random() {
    checkOwner();
    return random;
  }

  /** Tasks scheduled and neither run nor cancelled. */
  public int pendingTasks() {
    checkOwner();
    return pending;
  }

  /**
   * Runs every task due now, including those that tasks schedule for now, without moving the clock.
   * Returns how many ran.
   */
  public int runUntilIdle() {
    enter();
    try {
      int ran = 0;
      while (runOneDueBy(nanos)) {
        ran++;
      }
      return ran;
    } finally {
      running = false;
    }
  }

  /**
   * Moves the clock forward by {@code duration}, running every task due in that window in order;
   * the clock reads each task's due time while it runs, and the window's end afterwards.
   */
  public void advance(Duration duration) {
    enter();
    try {
      long end = deadline(duration);
      while (runOneDueBy(end)) {
        // keep going
      }
      nanos = Math.max(nanos, end);
    } finally {
      running = false;
    }
  }

  /**
   * Runs tasks in order until {@code condition} holds, for at most {@code limit} of virtual time.
   * Returns whether it held; the clock stops at the task that made it hold, or at the limit.
   */
  public boolean runUntil(BooleanSupplier condition, Duration limit) {
    enter();
    try {
      long end = deadline(limit);
      while (!condition.getAsBoolean()) {
        if (!runOneDueBy(end)) {
          nanos = Math.max(nanos, end);
          return condition.getAsBoolean();
        }
      }
      return true;
    } finally {
      running = false;
    }
  }

  /** Runs the single next task, moving the clock to its due time; false when none is pending. */
  public boolean runNext() {
    enter();
    try {
      return runOneDueBy(Long.MAX_VALUE);
    } finally {
      running = false;
    }
  }

  private boolean runOneDueBy(long limit) {
    Timer next = timers.peek();
    while (next != null && next.finished) {
      timers.poll();
      cancelledInHeap--;
      next = timers.peek();
    }
    if (next == null || next.due > limit) {
      return false;
    }
    timers.poll();
    next.finished = true;
    pending--;
    if (next.due > nanos) {
      nanos = next.due;
      tasksAtThisInstant = 0;
    }
    if (++tasksAtThisInstant > MAX_TASKS_PER_INSTANT) {
      throw new IllegalStateException(
          "livelock: over " + MAX_TASKS_PER_INSTANT + " tasks at one instant (seed " + seed + ")");
    }
    next.task.run();
    return true;
  }

  private void enter() {
    checkOwner();
    if (running) {
      // A task driving the clock would run other tasks inside itself, out of order.
      throw new IllegalStateException(
          "DeterministicEnv is already running tasks; a task may not drive it");
    }
    running = true;
  }

  private long deadline(Duration duration) {
    long delta = saturatedNanos(duration);
    if (delta < 0) {
      throw new IllegalArgumentException("negative duration: " + duration);
    }
    return delta > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : nanos + delta;
  }

  private void checkOwner() {
    Thread current = Thread.currentThread();
    if (current != owner) {
      throw new IllegalStateException(
          "DeterministicEnv (seed "
              + seed
              + ") is owned by thread '"
              + owner.getName()
              + "' but was called from '"
              + current.getName()
              + "'");
    }
  }

  private static long saturatedNanos(Duration delay) {
    try {
      return delay.toNanos();
    } catch (ArithmeticException overflow) {
      return delay.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private final class Timer implements Cancellable {
    final long due;
    final long sequence;
    final Runnable task;
    boolean finished;

    Timer(long due, long sequence, Runnable task) {
      this.due = due;
      this.sequence = sequence;
      this.task = task;
    }

    @Override
    public boolean cancel() {
      checkOwner();
      if (finished) {
        return false;
      }
      // Left in the heap and skipped when reached (removal from a heap is linear), unless
      // cancelled timers make up most of it: then sweep them in one pass.
      finished = true;
      pending--;
      if (++cancelledInHeap > 64 && cancelledInHeap > timers.size() / 2) {
        timers.removeIf(t -> t.finished);
        cancelledInHeap = 0;
      }
      return true;
    }
  }

  /** The seeded generator, guarded so that a draw from a foreign thread fails loudly. */
  private final class OwnedRandom implements RandomGenerator {
    private final SplittableRandom delegate;

    OwnedRandom(SplittableRandom delegate) {
      this.delegate = delegate;
    }

    @Override
    public long nextLong() {
      checkOwner();
      return delegate.nextLong();
    }
  }
}
