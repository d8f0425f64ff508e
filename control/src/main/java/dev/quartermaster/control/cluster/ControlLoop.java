package dev.quartermaster.control.cluster;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import dev.quartermaster.core.queue.WorkQueue;
import dev.quartermaster.core.queue.Workers;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A controller's queue of keys and the workers that reconcile them. Event handlers {@link #enqueue}
 * keys at any time; keys are reconciled only between {@link #start} and {@link #stop}, so a
 * non-leader keeps its queue warm without acting on it.
 */
public final class ControlLoop {
  private final String name;
  private final Env env;
  private final WorkQueue<String> queue;
  private final int workers;
  private final Function<String, Result> reconcile;
  private Optional<Workers<String>> running = Optional.empty();
  // Set once by whoever wires the loops (ControlPlane), before they start; volatile because the
  // workers that read it run on other threads.
  private volatile ControllerMetrics metrics = ControllerMetrics.NONE;

  public ControlLoop(String name, Env env, int workers, Function<String, Result> reconcile) {
    this.name = Objects.requireNonNull(name, "name");
    this.env = Objects.requireNonNull(env, "env");
    this.queue = WorkQueue.create(env);
    this.workers = workers;
    this.reconcile = Objects.requireNonNull(reconcile, "reconcile");
  }

  public String name() {
    return name;
  }

  public void enqueue(String key) {
    queue.add(key);
  }

  public void enqueueAfter(String key, Duration delay) {
    queue.addAfter(key, delay);
  }

  /** Reports each reconcile to {@code sink} from now on. */
  public void observeWith(ControllerMetrics sink) {
    this.metrics = Objects.requireNonNull(sink, "sink");
  }

  public WorkQueue<String> queue() {
    return queue;
  }

  public synchronized void start() {
    if (running.isEmpty()) {
      running = Optional.of(Workers.start(env, queue, workers, this::observed));
    }
  }

  /**
   * Runs the reconcile and reports how it went and how long it took; a throw is reported, then
   * rethrown to the workers.
   */
  private Result observed(String key) {
    long start = env.nanoTime();
    try {
      var result = reconcile.apply(key);
      metrics.reconciled(
          name,
          Duration.ofNanos(env.nanoTime() - start),
          result == null ? ReconcileOutcome.ERROR : ReconcileOutcome.of(result));
      return result;
    } catch (RuntimeException e) {
      metrics.reconciled(name, Duration.ofNanos(env.nanoTime() - start), ReconcileOutcome.ERROR);
      throw e;
    }
  }

  public synchronized void stop() {
    running.ifPresent(Workers::stop);
    running = Optional.empty();
  }

  public synchronized boolean isRunning() {
    return running.isPresent();
  }
}
