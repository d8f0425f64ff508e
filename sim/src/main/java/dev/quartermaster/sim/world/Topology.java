package dev.quartermaster.sim.world;

import dev.quartermaster.api.gang.TopologyKeys;
import java.util.Map;

/**
 * Where the simulated nodes sit ({@link TopologyKeys}): one zone; two nodes to a rack, and a rack
 * is one NVLink clique (as a GB200 NVL72 rack is). With three nodes: {@code node-1} and {@code
 * node-2} in {@code nvl-a} (8 GPUs), {@code node-3} alone in {@code nvl-b} (4 GPUs), so a gang that
 * requires one clique fits in one and not the other.
 */
final class Topology {
  static final String ZONE = "zone-1";

  private Topology() {}

  /** The labels of the {@code index}th node (1-based). */
  static Map<String, String> labels(int index) {
    int rack = (index - 1) / 2;
    return Map.of(
        TopologyKeys.ZONE,
        ZONE,
        TopologyKeys.RACK,
        "rack-" + (rack + 1),
        TopologyKeys.NVLINK_CLIQUE,
        "nvl-" + (char) ('a' + rack));
  }
}
