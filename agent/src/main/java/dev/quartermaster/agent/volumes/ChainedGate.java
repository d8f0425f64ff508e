package dev.quartermaster.agent.volumes;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A {@link VolumeGate} as a chain of futures per key: each work starts when the previous one of its
 * key completed, on the thread that completed it (no thread of its own). A key's entry goes once
 * its last work is done.
 */
public final class ChainedGate implements VolumeGate {
  private final Map<String, CompletableFuture<Void>> tails = new HashMap<>();

  @Override
  public <T> CompletionStage<T> run(String key, Supplier<? extends CompletionStage<T>> work) {
    var result = new CompletableFuture<T>();
    CompletableFuture<Void> previous;
    CompletableFuture<Void> tail;
    synchronized (this) {
      previous = tails.getOrDefault(key, CompletableFuture.completedFuture(null));
      tail = result.handle((v, e) -> null);
      tails.put(key, tail);
    }
    tail.whenComplete((v, e) -> {
      synchronized (this) {
        tails.remove(key, tail);
      }
    });
    previous.whenComplete((v, e) -> {
      try {
        work.get().whenComplete((r, f) -> {
          if (f != null) {
            result.completeExceptionally(f);
          } else {
            result.complete(r);
          }
        });
      } catch (RuntimeException f) {
        result.completeExceptionally(f);
      }
    });
    return result;
  }

  /** Keys with work queued or running (for tests). */
  public synchronized int busyKeys() {
    return tails.size();
  }
}
