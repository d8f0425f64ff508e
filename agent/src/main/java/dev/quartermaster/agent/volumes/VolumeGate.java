package dev.quartermaster.agent.volumes;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * One node call per volume at a time (I5 on the node side: a NodeUnstage never overtakes a
 * NodePublish of the same volume). The agent's own {@link ChainedGate} is meant to give way to
 * core's {@code KeyedSerializer}; this is the one seam to swap.
 */
@FunctionalInterface
public interface VolumeGate {

  /** Runs {@code work} once every earlier work of {@code key} has completed (either way); its result is the work's. */
  <T> CompletionStage<T> run(String key, Supplier<? extends CompletionStage<T>> work);
}
