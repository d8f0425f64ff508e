package dev.quartermaster.csi.plugin;

/** The plugin, controller and node capabilities Quartermaster looks at. */
public enum Capability {
  /** Plugin capability CONTROLLER_SERVICE. */
  ControllerService,
  /** Controller capability CREATE_DELETE_VOLUME. */
  CreateDeleteVolume,
  /**
   * Controller capability PUBLISH_UNPUBLISH_VOLUME: claims need ControllerPublish before the node's
   * calls.
   */
  PublishUnpublishVolume,
  ListVolumes,
  GetCapacity,
  /** Node capability STAGE_UNSTAGE_VOLUME: NodeStage before NodePublish. */
  StageUnstageVolume
}
