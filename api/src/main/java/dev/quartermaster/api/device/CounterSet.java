package dev.quartermaster.api.device;

import java.util.Map;
import java.util.TreeMap;

/**
 * A set of counters a node's devices share, with how much of each there is (Kubernetes DRA's {@code
 * sharedCounters}, KEP-4815): a MIG-capable GPU {@code gpu-0} publishes set {@code gpu-0} with 7
 * compute and 8 memory slices; the whole GPU consumes all of them, a {@code 1g} slice one of each.
 * See {@code dev.quartermaster.api.device.use}.
 *
 * @param name unique among the slice's counter sets, a DNS label
 * @param counters counter name → how much there is (at least 1)
 */
public record CounterSet(String name, Map<String, Long> counters) {
  public CounterSet {
    name = name == null ? "" : name;
    counters =
        counters == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(counters));
  }
}
