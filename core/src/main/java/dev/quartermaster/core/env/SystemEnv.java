package dev.quartermaster.core.env;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The production {@link Env}: the system clock, a virtual thread per task, and a thread-safe,
 * unseeded random source.
 *
 * <p>This is the one place allowed to read the system clock and start threads. Timers live on a
 * single shared daemon thread whose only job is to hand each due task to a fresh virtual thread, so
 * a slow task never delays another's timer.
 */
@OutsideEnv("the production Env: the system clock, threads and randomness")
public final class SystemEnv implements Env {

  private static final ScheduledThreadPoolExecutor TIMER = newTimer();
  private static final ThreadFactory TASKS = Thread.ofVirtual().name("qm-task-", 0).factory();
  private static final RandomGenerator RANDOM = new ThreadLocalRandomView();

  @Override
  public Instant now() {
    return Instant.now();
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    long nanos = Math.max(0, saturatedNanos(delay));
    ScheduledFuture<?> future = TIMER.schedule(() -> execute(task), nanos, TimeUnit.NANOSECONDS);
    // Once handed to its virtual thread the task counts as run, so cancel reports false.
    return () -> future.cancel(false);
  }

  @Override
  public void execute(Runnable task) {
    TASKS.newThread(task).start();
  }

  /**
   * Enough that a burst of watch events costs a few thread starts, few enough that one turn stays
   * short.
   */
  @Override
  public int tasksPerTurn() {
    return 64;
  }

  @Override
  public RandomGenerator random() {
    return RANDOM;
  }

  private static ScheduledThreadPoolExecutor newTimer() {
    ThreadFactory factory = Thread.ofPlatform().name("qm-env-timer").daemon(true).factory();
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, factory);
    // Cancelled add-after timers are common (a key re-added sooner); don't let them pile up.
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  private static long saturatedNanos(Duration delay) {
    try {
      return delay.toNanos();
    } catch (ArithmeticException overflow) {
      return delay.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * Safe to share across threads: every draw goes to the calling thread's own generator. All other
   * {@link RandomGenerator} methods derive from {@code nextLong}.
   */
  @OutsideEnv("the production Env's randomness")
  private static final class ThreadLocalRandomView implements RandomGenerator {
    @Override
    public long nextLong() {
      return ThreadLocalRandom.current().nextLong();
    }
  }
}
