package dev.quartermaster.core.serial;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Runs asynchronous calls so that calls for one key do not overlap: a call is started only when no
 * earlier-submitted call for the same key is in flight.
 *
 * <p>{@link KeyedSerializer} is the implementation to use. The interface exists so that tests and
 * the simulation can put deliberately naive variants in its place and show that the checks catch
 * them.
 */
public interface Serializer<K> {

  /**
   * Starts {@code call} (calls the supplier) once no call submitted earlier for {@code key} is in
   * flight, and completes the returned stage with the outcome of the stage the call returned.
   */
  <T> CompletionStage<T> submit(K key, Supplier<? extends CompletionStage<T>> call);
}
