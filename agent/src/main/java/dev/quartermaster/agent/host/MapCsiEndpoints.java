package dev.quartermaster.agent.host;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Plugin endpoints held in memory: the simulation (and tests) put a plugin under an endpoint name,
 * or take it away, as a plugin process would start or die on a real node.
 */
public final class MapCsiEndpoints implements CsiEndpoints {
  private final Map<String, CsiPlugin> plugins = new ConcurrentSkipListMap<>();

  public void put(String endpoint, CsiPlugin plugin) {
    plugins.put(endpoint, plugin);
  }

  public void remove(String endpoint) {
    plugins.remove(endpoint);
  }

  /** What is there now, by endpoint. */
  public Map<String, CsiPlugin> plugins() {
    return Map.copyOf(plugins);
  }

  @Override
  public List<String> list() {
    return List.copyOf(plugins.keySet());
  }

  @Override
  public CsiPlugin connect(String endpoint) {
    var p = plugins.get(endpoint);
    if (p == null) {
      throw new IllegalArgumentException("no CSI plugin at " + endpoint);
    }
    return new Unclosable(p);
  }

  /**
   * The agent closes the clients it connected; here that must not close the plugin itself, which
   * belongs to the node and outlives any agent.
   */
  private record Unclosable(CsiPlugin p) implements CsiPlugin {
    @Override
    public CompletionStage<PluginInfo> pluginInfo() {
      return p.pluginInfo();
    }

    @Override
    public CompletionStage<Boolean> probe() {
      return p.probe();
    }

    @Override
    public CompletionStage<CreatedVolume> createVolume(
        String name, long capacityBytes, AccessMode mode, Map<String, String> parameters) {
      return p.createVolume(name, capacityBytes, mode, parameters);
    }

    @Override
    public CompletionStage<Void> deleteVolume(String volumeId) {
      return p.deleteVolume(volumeId);
    }

    @Override
    public CompletionStage<Map<String, String>> controllerPublish(
        String volumeId, String csiNodeId, AccessMode mode, boolean readOnly) {
      return p.controllerPublish(volumeId, csiNodeId, mode, readOnly);
    }

    @Override
    public CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId) {
      return p.controllerUnpublish(volumeId, csiNodeId);
    }

    @Override
    public CompletionStage<Long> capacity() {
      return p.capacity();
    }

    @Override
    public CompletionStage<NodeInfo> nodeInfo() {
      return p.nodeInfo();
    }

    @Override
    public CompletionStage<Void> nodeStage(
        String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode) {
      return p.nodeStage(volumeId, publishContext, stagingPath, mode);
    }

    @Override
    public CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath) {
      return p.nodeUnstage(volumeId, stagingPath);
    }

    @Override
    public CompletionStage<Void> nodePublish(
        String volumeId,
        Map<String, String> publishContext,
        String stagingPath,
        String targetPath,
        AccessMode mode,
        boolean readOnly) {
      return p.nodePublish(volumeId, publishContext, stagingPath, targetPath, mode, readOnly);
    }

    @Override
    public CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath) {
      return p.nodeUnpublish(volumeId, targetPath);
    }

    @Override
    public void close() {
      // the node's plugin stays
    }
  }
}
