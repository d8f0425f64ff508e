package dev.quartermaster.csi.plugin;

/**
 * NodeGetInfo's answer: the plugin's id for this node and how many volumes it may publish here (0 =
 * no limit).
 */
public record NodeInfo(String nodeId, long maxVolumesPerNode) {
  public NodeInfo {
    nodeId = nodeId == null ? "" : nodeId;
  }
}
