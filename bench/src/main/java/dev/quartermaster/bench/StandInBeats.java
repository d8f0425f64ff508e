package dev.quartermaster.bench;

import dev.quartermaster.agent.node.NodeStatusWriter;
import dev.quartermaster.agent.node.SlicePublisher;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.core.env.Env;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Every node's heartbeat at the agent's period, made by the agent's own writers: the status through
 * {@link NodeStatusWriter}, then the device slice through {@link SlicePublisher} (unchanged, as
 * nearly always). Nodes {@code node-0 … node-(n-1)}, their beats spread evenly over the period;
 * each beat on a thread of its own, as each agent beats on its own (the store may hold a beat a
 * moment for company, and a shared pool would wait with it). Counts the API requests the beats
 * make.
 */
final class StandInBeats implements AutoCloseable {
  static final Duration PERIOD = Duration.ofSeconds(10);

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().factory());
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong requests = new AtomicLong();

  /** How a beat is written. */
  enum Style {
    /** The agent's own writers: one request a beat, nearly always. */
    AGENT,
    /**
     * As the agent wrote it before them, the naive beat: read the node, write its status, read the
     * slice (three requests).
     */
    READ_EACH_TIME
  }

  private StandInBeats(IntFunction<ApiClient> apis, Env env, int nodes, Style style) {
    for (int i = 0; i < nodes; i++) {
      var name = "node-" + i;
      var api = apis.apply(i);
      var counted = counting(api);
      var status = new NodeStatusWriter(counted, name);
      var slice = new SlicePublisher(counted, name);
      var offered = api.get(Kinds.DEVICE_SLICE, name).orElseThrow().spec();
      Runnable beat =
          () -> {
            try {
              if (style == Style.AGENT) {
                status.update(s -> s.withHeartbeat(Optional.of(env.now())));
                slice.publish(offered.devices(), offered.sharedCounters());
              } else {
                var n = counted.get(Kinds.NODE, name).orElseThrow();
                counted.updateStatus(
                    n.withStatus(n.status().withHeartbeat(Optional.of(env.now()))));
                counted.get(Kinds.DEVICE_SLICE, name);
              }
              written.incrementAndGet();
            } catch (RuntimeException e) {
              // the agent logs it and beats again at the next period
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
    return new StandInBeats(i -> api, env, nodes, Style.AGENT);
  }

  /** Node {@code i}'s beats through {@code apis.apply(i)}, written in {@code style}. */
  static StandInBeats start(IntFunction<ApiClient> apis, Env env, int nodes, Style style) {
    return new StandInBeats(apis, env, nodes, style);
  }

  /** Beats written so far. */
  long written() {
    return written.get();
  }

  /** API requests the beats made so far. */
  long requests() {
    return requests.get();
  }

  private ApiClient counting(ApiClient api) {
    return (ApiClient)
        Proxy.newProxyInstance(
            ApiClient.class.getClassLoader(),
            new Class<?>[] {ApiClient.class},
            (proxy, method, args) -> {
              requests.incrementAndGet();
              try {
                return method.invoke(api, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
