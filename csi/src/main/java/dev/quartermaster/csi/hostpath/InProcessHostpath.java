package dev.quartermaster.csi.hostpath;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The hostpath plugin in this process, as a {@link CsiPlugin}: each call runs on its own virtual
 * thread (the calls do file I/O and may carry artificial latency), so callers never block.
 */
@OutsideEnv("the real hostpath plugin's own threads, run in-process")
final class InProcessHostpath implements CsiPlugin {
  private final HostpathPlugin plugin;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

  InProcessHostpath(HostpathPlugin plugin) {
    this.plugin = plugin;
  }

  @Override
  public CompletionStage<PluginInfo> pluginInfo() {
    return run(plugin::info);
  }

  @Override
  public CompletionStage<Boolean> probe() {
    return run(plugin::ready);
  }

  @Override
  public CompletionStage<CreatedVolume> createVolume(
      String name, long capacityBytes, AccessMode mode, Map<String, String> parameters) {
    return run(
        () ->
            plugin.createVolume(
                name, capacityBytes, 0, List.of(VolumeAccess.mount(mode)), parameters));
  }

  @Override
  public CompletionStage<Void> deleteVolume(String volumeId) {
    return run(() -> plugin.deleteVolume(volumeId));
  }

  @Override
  public CompletionStage<Map<String, String>> controllerPublish(
      String volumeId, String csiNodeId, AccessMode mode, boolean readOnly) {
    return run(
        () -> plugin.controllerPublish(volumeId, csiNodeId, VolumeAccess.mount(mode), readOnly));
  }

  @Override
  public CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId) {
    return run(() -> plugin.controllerUnpublish(volumeId, csiNodeId));
  }

  @Override
  public CompletionStage<Long> capacity() {
    return run(() -> plugin.availableCapacity(List.of()));
  }

  @Override
  public CompletionStage<NodeInfo> nodeInfo() {
    return run(plugin::nodeInfo);
  }

  @Override
  public CompletionStage<Void> nodeStage(
      String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode) {
    return run(
        () -> plugin.nodeStage(volumeId, publishContext, stagingPath, VolumeAccess.mount(mode)));
  }

  @Override
  public CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath) {
    return run(() -> plugin.nodeUnstage(volumeId, stagingPath));
  }

  @Override
  public CompletionStage<Void> nodePublish(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      String targetPath,
      AccessMode mode,
      boolean readOnly) {
    return run(
        () ->
            plugin.nodePublish(
                volumeId,
                publishContext,
                stagingPath,
                targetPath,
                VolumeAccess.mount(mode),
                readOnly));
  }

  @Override
  public CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath) {
    return run(() -> plugin.nodeUnpublish(volumeId, targetPath));
  }

  @Override
  public void close() {
    executor.shutdown();
  }

  private <T> CompletionStage<T> run(Supplier<T> call) {
    return CompletableFuture.supplyAsync(call, executor);
  }

  private CompletionStage<Void> run(Runnable call) {
    return CompletableFuture.runAsync(call, executor);
  }
}
