package dev.quartermaster.cli.commands;

import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;
import org.slf4j.MDC;

/**
 * The env of one of {@code qm up}'s in-process agents: every task it runs carries the node's name in
 * the logging context ({@value #KEY}), so the log line says which agent wrote it ({@code INFO
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

  /** Work that may fail with an I/O error, as an agent's start does. */
  interface Work<T> {
    T run() throws java.io.IOException;
  }

  /** Runs {@code work} on this thread as the node's, as the agent's start-up runs. */
  <T> T call(Work<T> work) throws java.io.IOException {
    var previous = MDC.get(KEY);
    MDC.put(KEY, node);
    try {
      return work.run();
    } finally {
      restore(previous);
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
    return () -> {
      var previous = MDC.get(KEY);
      MDC.put(KEY, node);
      try {
        task.run();
      } finally {
        restore(previous);
      }
    };
  }

  private static void restore(String previous) {
    if (previous == null) {
      MDC.remove(KEY);
    } else {
      MDC.put(KEY, previous);
    }
  }
}
