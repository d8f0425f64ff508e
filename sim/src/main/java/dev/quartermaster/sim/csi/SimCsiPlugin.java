package dev.quartermaster.sim.csi;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * One instance of a simulated plugin on one node, over the shared {@link SimStorage}. Every call
 * takes virtual time (1–{@code maxLatency}, drawn from the env), so calls really overlap unless the
 * caller serializes them; a destructive call occupies the storage system from its start to its end.
 * {@link #down} makes every call fail UNAVAILABLE (the plugin process died).
 */
public final class SimCsiPlugin implements CsiPlugin {
  private static final EnumSet<AccessMode> MODES = EnumSet.allOf(AccessMode.class);

  private final Env env;
  private final SimStorage storage;
  private final String node;
  private final boolean controller;
  private final Duration maxLatency;
  private boolean down;

  public SimCsiPlugin(
      Env env, SimStorage storage, String node, boolean controller, Duration maxLatency) {
    this.env = env;
    this.storage = storage;
    this.node = node;
    this.controller = controller;
    this.maxLatency = maxLatency;
  }

  public void down(boolean d) {
    down = d;
  }

  public boolean isDown() {
    return down;
  }

  @Override
  public CompletionStage<PluginInfo> pluginInfo() {
    var caps = EnumSet.of(Capability.StageUnstageVolume);
    if (controller) {
      caps.addAll(
          EnumSet.of(
              Capability.ControllerService,
              Capability.CreateDeleteVolume,
              Capability.PublishUnpublishVolume,
              Capability.ListVolumes,
              Capability.GetCapacity));
    }
    return later(
        CsiCall.GetPluginInfo, () -> new PluginInfo(storage.plugin(), "sim-1", caps, MODES));
  }

  @Override
  public CompletionStage<Boolean> probe() {
    return later(CsiCall.Probe, () -> true);
  }

  @Override
  public CompletionStage<CreatedVolume> createVolume(
      String name, long capacityBytes, AccessMode mode, Map<String, String> parameters) {
    return destructive(CsiCall.CreateVolume, name, () -> storage.create(name, capacityBytes));
  }

  @Override
  public CompletionStage<Void> deleteVolume(String volumeId) {
    return destructive(
        CsiCall.DeleteVolume,
        volumeId,
        () -> {
          storage.delete(volumeId);
          return null;
        });
  }

  @Override
  public CompletionStage<Map<String, String>> controllerPublish(
      String volumeId, String csiNodeId, AccessMode mode, boolean readOnly) {
    return destructive(
        CsiCall.ControllerPublishVolume, volumeId, () -> storage.attach(volumeId, csiNodeId, mode));
  }

  @Override
  public CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId) {
    return destructive(
        CsiCall.ControllerUnpublishVolume,
        volumeId,
        () -> {
          storage.detach(volumeId, csiNodeId);
          return null;
        });
  }

  @Override
  public CompletionStage<Long> capacity() {
    return later(CsiCall.GetCapacity, () -> Long.MAX_VALUE);
  }

  @Override
  public CompletionStage<NodeInfo> nodeInfo() {
    return later(CsiCall.NodeGetInfo, () -> new NodeInfo(node, SimStorage.DEVICE_NAMES));
  }

  @Override
  public CompletionStage<Void> nodeStage(
      String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode) {
    return later(
        CsiCall.NodeStageVolume,
        () -> {
          storage.stage(volumeId, node, stagingPath);
          return null;
        });
  }

  @Override
  public CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath) {
    return later(
        CsiCall.NodeUnstageVolume,
        () -> {
          storage.unstage(volumeId, node);
          return null;
        });
  }

  @Override
  public CompletionStage<Void> nodePublish(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      String targetPath,
      AccessMode mode,
      boolean readOnly) {
    return later(
        CsiCall.NodePublishVolume,
        () -> {
          storage.publish(volumeId, node, targetPath, readOnly);
          return null;
        });
  }

  @Override
  public CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath) {
    return later(
        CsiCall.NodeUnpublishVolume,
        () -> {
          storage.unpublish(volumeId, node, targetPath);
          return null;
        });
  }

  @Override
  public void close() {}

  private Duration latency() {
    return Duration.ofMillis(1 + env.random().nextLong(Math.max(1, maxLatency.toMillis())));
  }

  /** The effect happens at the end of the call's time. */
  private <T> CompletionStage<T> later(CsiCall call, Supplier<T> effect) {
    var f = new CompletableFuture<T>();
    if (down) {
      f.completeExceptionally(
          new CsiException(call, CsiCode.UNAVAILABLE, "plugin on " + node + " is down"));
      return f;
    }
    env.schedule(latency(), () -> complete(f, effect));
    return f;
  }

  /** Occupies the storage system from start to end; the effect happens at the end. */
  private <T> CompletionStage<T> destructive(CsiCall call, String volume, Supplier<T> effect) {
    var f = new CompletableFuture<T>();
    if (down || !controller) {
      f.completeExceptionally(
          new CsiException(
              call,
              down ? CsiCode.UNAVAILABLE : CsiCode.UNIMPLEMENTED,
              "plugin on " + node + (down ? " is down" : " serves no controller")));
      return f;
    }
    try {
      storage.begin(call, volume, node, env.nanoTime());
    } catch (CsiException e) {
      f.completeExceptionally(e);
      return f;
    }
    env.schedule(
        latency(),
        () -> {
          storage.end();
          complete(f, effect);
        });
    return f;
  }

  private static <T> void complete(CompletableFuture<T> f, Supplier<T> effect) {
    try {
      f.complete(effect.get());
    } catch (CsiException e) {
      f.completeExceptionally(e);
    }
  }
}
