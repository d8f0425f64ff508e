package dev.quartermaster.csi.hostpath;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A volume as the controller remembers it.
 *
 * @param attachments by node id
 */
public record VolumeRecord(
    String id,
    String name,
    long capacityBytes,
    Set<AccessMode> modes,
    Map<String, String> parameters,
    Map<String, Attachment> attachments) {
  public VolumeRecord {
    modes = modes == null ? Set.of() : Set.copyOf(modes);
    parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
    // Sorted, so that the state file and ListVolumes read the same way every time.
    attachments =
        attachments == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(attachments));
  }

  /** Whether the volume may be attached to more than one node at once. */
  public boolean multiNode() {
    return !modes.isEmpty() && modes.stream().allMatch(m -> m == AccessMode.MultiNodeReaderOnly);
  }

  VolumeRecord withAttachments(Map<String, Attachment> next) {
    return new VolumeRecord(id, name, capacityBytes, modes, parameters, next);
  }
}
