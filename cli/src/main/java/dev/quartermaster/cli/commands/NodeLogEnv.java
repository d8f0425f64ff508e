package dev.quartermaster.cli.commands;

import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;
import org.slf4j.MDC;

/**
 * The env of one of {@code qm up}'s in-process agents: every task it runs carries the node's name
 * in the logging context ({@value #KEY}), so the log line says which agent wrote it ({@code INFO
 * DurableLedger node=node-2 …}) although every agent shares one process and one log.
 */
final class NodeLogEnv implements Env {
  /** The logging context key; logback.xml prints it as {@code node=NAME}. */
  static final String KEY = "node";

  private final Env env;
  private final String node;

  NodeLogEnv(Env env, String node) {
    this.env = env;
    this.node = node;
  }

  /** Work that may fail with {@code X}, as an agent's start may with an I/O error. */
  interface Work<T, X extends Exception> {
    T run() throws X;
  }

  /** Runs {@code work} on this thread as the node's, as the agent's start-up runs. */
  <T, X extends Exception> T call(Work<T, X> work) throws X {
    var previous = MDC.get(KEY);
    MDC.put(KEY, node);
    try {
      return work.run();
    } finally {
      if (previous == null) {
        MDC.remove(KEY);
      } else {
        MDC.put(KEY, previous);
      }
    }
  }

  @Override
  public Instant now() {
    return env.now();
  }

  @Override
  public long nanoTime() {
    return env.nanoTime();
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    return env.schedule(delay, tagged(task));
  }

  @Override
  public void execute(Runnable task) {
    env.execute(tagged(task));
  }

  @Override
  public RandomGenerator random() {
    return env.random();
  }

  private Runnable tagged(Runnable task) {
    return () ->
        this.<Void, RuntimeException>call(
            () -> {
              task.run();
              return null;
            });
  }
}
