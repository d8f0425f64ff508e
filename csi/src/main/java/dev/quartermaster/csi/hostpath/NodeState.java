package dev.quartermaster.csi.hostpath;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a node persists.
 *
 * @param staged by volume id
 * @param published by target path
 */
public record NodeState(
    String nodeId, Map<String, StagedVolume> staged, Map<String, PublishedTarget> published) {
  public NodeState {
    nodeId = nodeId == null ? "" : nodeId;
    staged = staged == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(staged));
    published =
        published == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(published));
  }

  public static NodeState empty(String nodeId) {
    return new NodeState(nodeId, Map.of(), Map.of());
  }
}
