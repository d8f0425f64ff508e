package dev.quartermaster.csi.plugin;

/** The CSI calls Quartermaster makes, by their spec names. */
public enum CsiCall {
  GetPluginInfo,
  GetPluginCapabilities,
  Probe,
  CreateVolume,
  DeleteVolume,
  ControllerPublishVolume,
  ControllerUnpublishVolume,
  ControllerGetCapabilities,
  GetCapacity,
  ListVolumes,
  NodeGetInfo,
  NodeGetCapabilities,
  NodeStageVolume,
  NodeUnstageVolume,
  NodePublishVolume,
  NodeUnpublishVolume,
  ValidateVolumeCapabilities;

  /**
   * Calls that change the storage system's attachments or volumes: the ones serialized per plugin
   * (I5).
   */
  public boolean destructive() {
    return switch (this) {
      case CreateVolume, DeleteVolume, ControllerPublishVolume, ControllerUnpublishVolume -> true;
      default -> false;
    };
  }
}
