package dev.quartermaster.csi.plugin;

import java.util.Map;

/** CreateVolume's answer: the plugin's id, the bytes provisioned, and its volume context. */
public record CreatedVolume(String volumeId, long capacityBytes, Map<String, String> context) {
  public CreatedVolume {
    volumeId = volumeId == null ? "" : volumeId;
    context = context == null ? Map.of() : Map.copyOf(context);
  }
}
