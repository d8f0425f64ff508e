package dev.quartermaster.api.device;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a device consumes of one counter set of its slice while a claim holds it (Kubernetes DRA's
 * {@code consumesCounters}, KEP-4815).
 *
 * @param counterSet the name of a counter set of the same slice
 * @param counters counter name (of that set) → how much of it the device takes (at least 1)
 */
public record CounterConsumption(String counterSet, Map<String, Long> counters) {
  public CounterConsumption {
    counterSet = counterSet == null ? "" : counterSet;
    counters =
        counters == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(counters));
  }
}
