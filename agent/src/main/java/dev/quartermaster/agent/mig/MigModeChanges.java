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
    // In GPU order, never Map.copyOf's (salted per JVM): events are recorded in this order, and a
    // seed must replay the same writes in any JVM (ReplayAcrossJvmsTest).
    switched = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(switched));
    waiting = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(waiting));
  }
}
