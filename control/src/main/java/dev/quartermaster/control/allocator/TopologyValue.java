package dev.quartermaster.control.allocator;

import java.util.Map;

/**
 * The nodes whose label {@code key} has {@code value}: where a placed gang that requires one value
 * of a topology key holds its members, and so where each member placed after it must go.
 */
public record TopologyValue(String key, String value) {
  /** Whether a node with {@code labels} is one of them. */
  boolean holds(Map<String, String> labels) {
    return value.equals(labels.get(key));
  }
}
