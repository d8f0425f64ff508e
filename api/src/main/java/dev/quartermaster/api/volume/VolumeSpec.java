package dev.quartermaster.api.volume;

import java.util.Map;

/**
 * @param plugin the CSI plugin that serves the volume, e.g. {@code hostpath.csi.quartermaster.dev}
 * @param capacityBytes the size to provision
 */
public record VolumeSpec(
    String plugin, long capacityBytes, AccessMode accessMode, Map<String, String> parameters) {
  public static final VolumeSpec EMPTY =
      new VolumeSpec("", 0, AccessMode.SingleNodeWriter, Map.of());

  public VolumeSpec {
    plugin = plugin == null ? "" : plugin;
    accessMode = accessMode == null ? AccessMode.SingleNodeWriter : accessMode;
    parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
  }

  /** CSI access modes. */
  public enum AccessMode {
    SingleNodeWriter,
    SingleNodeReaderOnly,
    MultiNodeReaderOnly,
    MultiNodeSingleWriter,
    MultiNodeMultiWriter
  }
}
