package dev.quartermaster.agent.mig;

import java.util.Map;

/**
 * What one pass of {@link NodeMig#applyModes} did: the GPUs whose MIG mode it switched, and those
 * whose wished mode waits, each with why (the claims it waits out, or what the driver refused).
 *
 * @param switched GPU name to its MIG mode now ({@code true}: on)
 * @param waiting GPU name to a sentence that starts with the GPU's name
 */
public record MigModeChanges(Map<String, Boolean> switched, Map<String, String> waiting) {
  public MigModeChanges {
    switched = Map.copyOf(switched);
    waiting = Map.copyOf(waiting);
  }
}
