package dev.quartermaster.csi.hostpath;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The hostpath plugin ({@value HostpathConfig#PLUGIN_NAME}) as plain synchronous calls: the
 * controller and/or node it serves, each call through the {@link CallGate} (latency, overlap
 * detection). Failures are {@link CsiException}s with the spec's codes. The gRPC adapters and
 * {@link #asCsiPlugin()} both sit on these methods.
 *
 * <p>Opening it reads the state files: a damaged one is a {@link DamagedStateException} naming it.
 */
public final class HostpathPlugin {

  /** Reported as vendor_version; CSI tools refuse a plugin without one. */
  public static final String VERSION = "0.1.0";

  private final HostpathConfig config;
  private final Optional<HostpathController> controller;
  private final Optional<HostpathNode> node;
  private final CallGate gate;

  private HostpathPlugin(HostpathConfig config) {
    this.config = config;
    try {
      Files.createDirectories(config.volumesDir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + config.volumesDir(), e);
    }
    this.controller =
        config.controller() ? Optional.of(new HostpathController(config)) : Optional.empty();
    this.node = config.node() ? Optional.of(new HostpathNode(config)) : Optional.empty();
    this.gate = new CallGate(config.detectOverlap(), config.callLatency());
  }

  /**
   * Opens the plugin on {@code config.stateDir()}, creating it if needed and reading what it
   * remembers.
   */
  public static HostpathPlugin open(HostpathConfig config) {
    return new HostpathPlugin(config);
  }

  public HostpathConfig config() {
    return config;
  }

  /** This plugin as a {@link CsiPlugin}, its calls run on virtual threads. */
  public CsiPlugin asCsiPlugin() {
    return new InProcessHostpath(this);
  }

  /** Destructive controller calls so far, and how many of them overlapped another. */
  public OverlapStats overlapStats() {
    return gate.stats();
  }

  public PluginInfo info() {
    try (var _ = gate.enter(CsiCall.GetPluginInfo)) {
      var caps = EnumSet.noneOf(Capability.class);
      if (config.controller()) {
        caps.addAll(
            EnumSet.of(
                Capability.ControllerService,
                Capability.CreateDeleteVolume,
                Capability.PublishUnpublishVolume,
                Capability.ListVolumes,
                Capability.GetCapacity));
      }
      if (config.node()) {
        caps.add(Capability.StageUnstageVolume);
      }
      return new PluginInfo(
          HostpathConfig.PLUGIN_NAME, VERSION, caps, HostpathController.SUPPORTED_MODES);
    }
  }

  /** Probe: ready once open (the state was read). */
  public boolean ready() {
    try (var _ = gate.enter(CsiCall.Probe)) {
      return true;
    }
  }

  public CreatedVolume createVolume(
      String name,
      long requiredBytes,
      long limitBytes,
      List<VolumeAccess> capabilities,
      Map<String, String> parameters) {
    return controller(
        CsiCall.CreateVolume,
        c -> c.createVolume(name, requiredBytes, limitBytes, capabilities, parameters));
  }

  public void deleteVolume(String volumeId) {
    controller(
        CsiCall.DeleteVolume,
        c -> {
          c.deleteVolume(volumeId);
          return null;
        });
  }

  public Map<String, String> controllerPublish(
      String volumeId, String nodeId, VolumeAccess access, boolean readOnly) {
    return controller(
        CsiCall.ControllerPublishVolume,
        c -> c.controllerPublish(volumeId, nodeId, access, readOnly));
  }

  public void controllerUnpublish(String volumeId, String nodeId) {
    controller(
        CsiCall.ControllerUnpublishVolume,
        c -> {
          c.controllerUnpublish(volumeId, nodeId);
          return null;
        });
  }

  public Validation validate(String volumeId, List<VolumeAccess> capabilities) {
    return controller(CsiCall.ValidateVolumeCapabilities, c -> c.validate(volumeId, capabilities));
  }

  public VolumePage listVolumes(int maxEntries, String startingToken) {
    return controller(CsiCall.ListVolumes, c -> c.listVolumes(maxEntries, startingToken));
  }

  public long availableCapacity() {
    return controller(CsiCall.GetCapacity, HostpathController::availableCapacity);
  }

  /** GetCapacity for volumes with {@code capabilities} (0 when one is not supported). */
  public long availableCapacity(List<VolumeAccess> capabilities) {
    return controller(CsiCall.GetCapacity, c -> c.availableCapacity(capabilities));
  }

  public long maximumVolumeSize() {
    return config.capacityBytes();
  }

  public NodeInfo nodeInfo() {
    return node(CsiCall.NodeGetInfo, HostpathNode::info);
  }

  public void nodeStage(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      VolumeAccess access) {
    node(
        CsiCall.NodeStageVolume,
        n -> {
          n.stage(volumeId, publishContext, stagingPath, access);
          return null;
        });
  }

  public void nodeUnstage(String volumeId, String stagingPath) {
    node(
        CsiCall.NodeUnstageVolume,
        n -> {
          n.unstage(volumeId, stagingPath);
          return null;
        });
  }

  public void nodePublish(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      String targetPath,
      VolumeAccess access,
      boolean readOnly) {
    node(
        CsiCall.NodePublishVolume,
        n -> {
          n.publish(volumeId, publishContext, stagingPath, targetPath, access, readOnly);
          return null;
        });
  }

  public void nodeUnpublish(String volumeId, String targetPath) {
    node(
        CsiCall.NodeUnpublishVolume,
        n -> {
          n.unpublish(volumeId, targetPath);
          return null;
        });
  }

  /** How the node stages and publishes (bind mounts or links); empty when it serves no node. */
  public Optional<Staging> stagingMethod() {
    return node.map(HostpathNode::method);
  }

  /** Whether a target was published read-only (recorded; see {@link HostpathNode}). */
  public boolean publishedReadOnly(String targetPath) {
    return node.map(n -> n.readOnly(targetPath)).orElse(false);
  }

  /** The access modes this plugin supports. */
  public static Set<AccessMode> supportedModes() {
    return HostpathController.SUPPORTED_MODES;
  }

  private <T> T controller(CsiCall call, Function<HostpathController, T> body) {
    var c = controller.orElseThrow(() -> unimplemented(call, "controller"));
    try (var _ = gate.enter(call)) {
      return body.apply(c);
    }
  }

  private <T> T node(CsiCall call, Function<HostpathNode, T> body) {
    var n = node.orElseThrow(() -> unimplemented(call, "node"));
    try (var _ = gate.enter(call)) {
      return body.apply(n);
    }
  }

  private static CsiException unimplemented(CsiCall call, String service) {
    return new CsiException(
        call, CsiCode.UNIMPLEMENTED, "this plugin instance does not serve the " + service);
  }
}
