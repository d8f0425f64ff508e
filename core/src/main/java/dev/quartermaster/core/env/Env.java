package dev.quartermaster.core.env;

import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;

/**
 * Everything logic needs from the outside world in time: clocks, deferred work and randomness.
 *
 * <p>Logic never reads {@code System.currentTimeMillis}, sleeps, starts threads or draws from
 * {@code Math.random}: it asks its {@code Env}. Production passes {@link SystemEnv} (system clock,
 * virtual threads); tests and the simulation pass {@link DeterministicEnv} (virtual time, one
 * thread, one seed), so that every run can be replayed from its seed.
 */
public interface Env {

  /** Wall-clock time, for timestamps that people read (createdAt, heartbeats). */
  Instant now();

  /** Monotonic nanoseconds, for measuring intervals; only differences are meaningful. */
  long nanoTime();

  /** Runs {@code task} once after {@code delay}; the returned handle cancels it if not yet run. */
  Cancellable schedule(Duration delay, Runnable task);

  /** Runs {@code task} asynchronously, as soon as possible. */
  void execute(Runnable task);

  /** The source of randomness; seeded in a deterministic env. */
  RandomGenerator random();

  /**
   * How many queued tasks a {@link SerialExecutor}, or keys a {@link
   * dev.quartermaster.core.queue.Workers} run, may take in one {@link #execute} turn. The
   * simulation keeps 1, so that other work may interleave between any two of them; in production
   * threads interleave anyway, and each turn is a thread started (an informer of a node agent runs
   * one task per watch event of the whole cluster; a controller, one per key).
   */
  default int tasksPerTurn() {
    return 1;
  }

  /** A scheduled task that can still be called off. */
  @FunctionalInterface
  interface Cancellable {
    /** Cancels the task; returns false when it already ran or was already cancelled. */
    boolean cancel();
  }
}
