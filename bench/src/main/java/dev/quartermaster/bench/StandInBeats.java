package dev.quartermaster.bench;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every node's heartbeat at the agent's period, written as {@code NodeStatusWriter} writes it: a
 * read of the node, then its status with the new time. Nodes {@code node-0 … node-(n-1)}, their
 * beats spread evenly over the period; each beat on a thread of its own, as each agent beats on its
 * own (the store may hold a beat a moment for company, and a shared pool would wait with it).
 */
final class StandInBeats implements AutoCloseable {
  static final Duration PERIOD = Duration.ofSeconds(10);

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().factory());
  private final AtomicLong written = new AtomicLong();

  private StandInBeats(ApiClient api, Env env, int nodes) {
    for (int i = 0; i < nodes; i++) {
      var name = "node-" + i;
      Runnable beat =
          () -> {
            try {
              api.get(Kinds.NODE, name)
                  .ifPresent(
                      n -> {
                        api.updateStatus(
                            n.withStatus(n.status().withHeartbeat(Optional.of(env.now()))));
                        written.incrementAndGet();
                      });
            } catch (RuntimeException e) {
              // a conflict with a controller's write: the next beat writes again
            }
          };
      timer.scheduleAtFixedRate(
          () -> Thread.ofVirtual().start(beat),
          PERIOD.toNanos() * i / nodes,
          PERIOD.toNanos(),
          TimeUnit.NANOSECONDS);
    }
  }

  static StandInBeats start(ApiClient api, Env env, int nodes) {
    return new StandInBeats(api, env, nodes);
  }

  /** Beats written so far. */
  long written() {
    return written.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
