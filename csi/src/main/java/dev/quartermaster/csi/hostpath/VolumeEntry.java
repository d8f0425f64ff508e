package dev.quartermaster.csi.hostpath;

import java.util.List;
import java.util.Map;

/** One ListVolumes entry: the volume and the nodes it is published to. */
public record VolumeEntry(
    String volumeId,
    long capacityBytes,
    Map<String, String> context,
    List<String> publishedNodeIds) {
  public VolumeEntry {
    context = context == null ? Map.of() : Map.copyOf(context);
    publishedNodeIds = publishedNodeIds == null ? List.of() : List.copyOf(publishedNodeIds);
  }
}
