package dev.quartermaster.sim;

import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The world's {@link Env} as one process sees it, with two faults of a real machine: a <em>pause
 * </em> (SIGSTOP, a long GC, a frozen VM, CPU starvation), during which none of its tasks run, its
 * timers fire only when it resumes and what reaches it over its connections waits (they stay open),
 * and a <em>wall-clock jump</em> (an NTP step), which moves {@link #now} but not {@link #nanoTime}.
 * The monotonic clock runs on through a pause, as it does on Linux: a resumed process finds that
 * time has passed.
 *
 * <p>Work held by a pause runs after it in the order it became due, before anything that arrives
 * later, so a process never sees its own events out of order.
 */
public final class ProcessEnv implements Env {
  private final Env world;
  private final ArrayDeque<Runnable> held = new ArrayDeque<>();
  private boolean paused;
  private boolean draining;
  private Duration clockOffset = Duration.ZERO;

  public ProcessEnv(Env world) {
    this.world = Objects.requireNonNull(world, "world");
  }

  /** Stops running this process's work until {@link #resume}. */
  public void pause() {
    paused = true;
  }

  /** Runs what the pause held, in order, and then everything as usual. */
  public void resume() {
    paused = false;
    drain();
  }

  public boolean isPaused() {
    return paused;
  }

  /** Steps this process's wall clock by {@code by} (negative: backwards). */
  public void jumpClock(Duration by) {
    clockOffset = clockOffset.plus(by);
  }

  /**
   * Runs {@code task} as this process: now, unless it is paused or still has held work, in which
   * case after that. Deliveries into the process (a watch event over one of its connections) go
   * through here.
   */
  public void deliver(Runnable task) {
    if (paused || !held.isEmpty()) {
      held.add(task);
      return;
    }
    task.run();
  }

  private void drain() {
    if (draining || held.isEmpty()) {
      return;
    }
    draining = true;
    world.execute(
        () -> {
          draining = false;
          if (paused) {
            return;
          }
          var next = held.poll();
          if (next != null) {
            next.run();
          }
          drain();
        });
  }

  @Override
  public Instant now() {
    return world.now().plus(clockOffset);
  }

  @Override
  public long nanoTime() {
    return world.nanoTime();
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    return world.schedule(delay, () -> deliver(task));
  }

  @Override
  public void execute(Runnable task) {
    world.execute(() -> deliver(task));
  }

  @Override
  public RandomGenerator random() {
    return world.random();
  }

  @Override
  public int tasksPerTurn() {
    return world.tasksPerTurn();
  }
}
