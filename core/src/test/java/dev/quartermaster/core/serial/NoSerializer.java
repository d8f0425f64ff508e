package dev.quartermaster.core.serial;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A deliberately naive {@link Serializer}: it starts every call at once, so two calls for one key
 * overlap. The at-most-one-per-key checks must catch it.
 */
public final class NoSerializer<K> implements Serializer<K> {

  @Override
  public <T> CompletionStage<T> submit(K key, Supplier<? extends CompletionStage<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException thrown) {
      return CompletableFuture.failedFuture(thrown);
    }
  }
}
