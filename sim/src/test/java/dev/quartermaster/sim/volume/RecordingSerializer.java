package dev.quartermaster.sim.volume;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.serial.Serializer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Wraps any serializer the volume controller is given and records, per key, whether calls start in
 * the order they were submitted, and the longest any call waited to start — what a FIFO serializer
 * promises and Nomad's wake-and-race one does not.
 */
final class RecordingSerializer implements Serializer<String> {
  private final Serializer<String> delegate;
  private final Env env;
  private final Map<String, Long> submitted = new HashMap<>();
  private final Map<String, Long> lastStarted = new HashMap<>();
  private long outOfOrder;
  private long starts;
  private long longestWaitNanos;

  RecordingSerializer(Serializer<String> delegate, Env env) {
    this.delegate = delegate;
    this.env = env;
  }

  @Override
  public <T> CompletionStage<T> submit(String key, Supplier<? extends CompletionStage<T>> call) {
    long seq = submitted.merge(key, 1L, Long::sum);
    long at = env.nanoTime();
    return delegate.submit(key, () -> {
      starts++;
      long previous = lastStarted.getOrDefault(key, 0L);
      if (seq < previous) {
        outOfOrder++;
      }
      lastStarted.put(key, Math.max(previous, seq));
      longestWaitNanos = Math.max(longestWaitNanos, env.nanoTime() - at);
      return call.get();
    });
  }

  /** Calls that started after a call submitted later for the same key. */
  long outOfOrder() {
    return outOfOrder;
  }

  long starts() {
    return starts;
  }

  Duration longestWait() {
    return Duration.ofNanos(longestWaitNanos);
  }
}
