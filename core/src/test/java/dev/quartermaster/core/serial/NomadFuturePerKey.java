package dev.quartermaster.core.serial;

import dev.quartermaster.core.env.Env;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A deliberately naive {@link Serializer}, after Nomad's {@code serializedControllerRPC}: a map of
 * key to the one future of the call in flight. A call that finds the key busy waits for that
 * future, then contends for the slot again; every waiter wakes at once and they race, so the order
 * is arbitrary and a waiter can lose again and again. It does keep calls for one key apart, so only
 * the FIFO checks can catch it.
 *
 * <p>To make the race real and replayable, the woken waiters re-contend in {@link Env#execute}
 * tasks queued in an order drawn from {@link Env#random()} (the Go scheduler's part), and a submit
 * that arrives between the release and those tasks takes the slot first, as a goroutine reaching
 * the mutex first would. Like Nomad's, a waiter cannot give up (cancelling the returned future does
 * not take it out) and there is no shutdown path here.
 */
public final class NomadFuturePerKey<K> implements Serializer<K> {

  private final Env env;

  /** Keys with a call in flight, each with the re-contentions of the callers waiting on it. */
  private final Map<K, List<Runnable>> futures = new HashMap<>();

  /** A serializer whose woken waiters race on {@code env}. */
  public NomadFuturePerKey(Env env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  @Override
  public <T> CompletionStage<T> submit(K key, Supplier<? extends CompletionStage<T>> call) {
    CompletableFuture<T> result = new CompletableFuture<>();
    contend(key, call, result);
    return result;
  }

  private <T> void contend(
      K key, Supplier<? extends CompletionStage<T>> call, CompletableFuture<T> result) {
    synchronized (futures) {
      List<Runnable> waiters = futures.get(key);
      if (waiters != null) {
        waiters.add(() -> contend(key, call, result)); // <-future.Done(): continue
        return;
      }
      futures.put(key, new ArrayList<>());
    }
    CompletionStage<T> stage;
    try {
      stage = call.get();
    } catch (RuntimeException thrown) {
      stage = CompletableFuture.failedFuture(thrown);
    }
    stage.whenComplete(
        (value, failure) -> {
          List<Runnable> woken;
          synchronized (futures) {
            woken = futures.remove(key); // done(); delete(futures, pluginID)
          }
          Collections.shuffle(woken, env.random());
          woken.forEach(env::execute);
          if (failure == null) {
            result.complete(value);
          } else {
            result.completeExceptionally(failure);
          }
        });
  }
}
