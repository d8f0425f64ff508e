package dev.quartermaster.csi.plugin;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * One CSI plugin endpoint as the rest of Quartermaster sees it: the CSI v1 calls we make, without
 * gRPC types, asynchronous so that a waiting caller holds no thread (and so that the simulation can
 * make a call take virtual time). A call that fails completes exceptionally with a {@link
 * CsiException} naming the call and its code. Implementations: the gRPC client over a Unix socket,
 * the in-process hostpath plugin, and the simulation's.
 *
 * <p>Paths are the node's paths, as strings, because the plugin (not this process) resolves them.
 */
public interface CsiPlugin extends AutoCloseable {

  /**
   * GetPluginInfo, GetPluginCapabilities and, where served, ControllerGetCapabilities and
   * NodeGetCapabilities.
   */
  CompletionStage<PluginInfo> pluginInfo();

  /** Probe: whether the plugin says it is ready. */
  CompletionStage<Boolean> probe();

  /** CreateVolume; idempotent by {@code name}. */
  CompletionStage<CreatedVolume> createVolume(
      String name, long capacityBytes, AccessMode mode, Map<String, String> parameters);

  /** DeleteVolume; an unknown id is success. */
  CompletionStage<Void> deleteVolume(String volumeId);

  /** ControllerPublishVolume; returns the publish context for the node's calls. */
  CompletionStage<Map<String, String>> controllerPublish(
      String volumeId, String csiNodeId, AccessMode mode, boolean readOnly);

  /** ControllerUnpublishVolume; a volume not published to the node is success. */
  CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId);

  /** GetCapacity: bytes still available. */
  CompletionStage<Long> capacity();

  /** NodeGetInfo. */
  CompletionStage<NodeInfo> nodeInfo();

  CompletionStage<Void> nodeStage(
      String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode);

  CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath);

  CompletionStage<Void> nodePublish(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      String targetPath,
      AccessMode mode,
      boolean readOnly);

  CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath);

  /** Releases the connection; calls in flight fail. */
  @Override
  void close();
}
