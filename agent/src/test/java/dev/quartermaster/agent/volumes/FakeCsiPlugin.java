package dev.quartermaster.agent.volumes;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * An in-memory CSI plugin whose every answer comes {@code latency} later in the deterministic env's
 * virtual time. It logs each call that succeeded (into a log shared with the test's runtime, so the
 * order stage → publish → start can be checked), can fail the next call of a kind with a code, hold
 * calls of a kind until released, answer garbage, and counts node calls in flight per volume.
 */
final class FakeCsiPlugin implements CsiPlugin {
  static final String NAME = "fake.csi.quartermaster.dev";

  private final DeterministicEnv env;
  private final List<String> log;
  Duration latency = Duration.ofMillis(10);
  PluginInfo info =
      new PluginInfo(
          NAME,
          "1.2.3",
          Set.of(
              Capability.ControllerService,
              Capability.PublishUnpublishVolume,
              Capability.StageUnstageVolume),
          Set.of());
  boolean ready = true;
  String nodeId = "fake-node-1";

  /** Calls whose answers are held until {@link #releaseHeld}. */
  final Set<CsiCall> hold = EnumSet.noneOf(CsiCall.class);

  private final List<Runnable> held = new ArrayList<>();
  private final Map<CsiCall, ArrayDeque<CsiCode>> failures = new HashMap<>();
  private final Map<String, Integer> inFlight = new HashMap<>();
  int maxInFlightPerVolume;

  /** The targets published and not unpublished, to their volume ids: the node's publications. */
  final Map<String, String> published = new java.util.TreeMap<>();

  FakeCsiPlugin(DeterministicEnv env, List<String> log) {
    this.env = env;
    this.log = log;
  }

  /** The next call of {@code call} fails with {@code code}. */
  void failNext(CsiCall call, CsiCode code) {
    failures.computeIfAbsent(call, c -> new ArrayDeque<>()).add(code);
  }

  void releaseHeld() {
    hold.clear();
    var now = List.copyOf(held);
    held.clear();
    now.forEach(Runnable::run);
  }

  private <T> CompletionStage<T> answer(
      CsiCall call, String volume, String detail, Supplier<T> value) {
    var f = new CompletableFuture<T>();
    if (!volume.isEmpty()) {
      int n = inFlight.merge(volume, 1, Integer::sum);
      maxInFlightPerVolume = Math.max(maxInFlightPerVolume, n);
    }
    Runnable complete =
        () -> {
          if (!volume.isEmpty()) {
            inFlight.merge(volume, -1, Integer::sum);
          }
          var code = failures.getOrDefault(call, new ArrayDeque<>()).poll();
          if (code != null) {
            f.completeExceptionally(new CsiException(call, code, "injected"));
            return;
          }
          if (!detail.isEmpty()) {
            log.add(call + " " + detail);
          }
          f.complete(value.get());
        };
    env.schedule(
        latency,
        () -> {
          if (hold.contains(call)) {
            held.add(complete);
          } else {
            complete.run();
          }
        });
    return f;
  }

  @Override
  public CompletionStage<PluginInfo> pluginInfo() {
    return answer(CsiCall.GetPluginInfo, "", "", () -> info);
  }

  @Override
  public CompletionStage<Boolean> probe() {
    return answer(CsiCall.Probe, "", "", () -> ready);
  }

  @Override
  public CompletionStage<CreatedVolume> createVolume(
      String name, long capacityBytes, AccessMode mode, Map<String, String> parameters) {
    return answer(
        CsiCall.CreateVolume,
        "",
        "",
        () -> new CreatedVolume("vol-" + name, capacityBytes, Map.of()));
  }

  @Override
  public CompletionStage<Void> deleteVolume(String volumeId) {
    return answer(CsiCall.DeleteVolume, "", "", () -> null);
  }

  @Override
  public CompletionStage<Map<String, String>> controllerPublish(
      String volumeId, String csiNodeId, AccessMode mode, boolean readOnly) {
    return answer(CsiCall.ControllerPublishVolume, "", "", Map::of);
  }

  @Override
  public CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId) {
    return answer(CsiCall.ControllerUnpublishVolume, "", "", () -> null);
  }

  @Override
  public CompletionStage<Long> capacity() {
    return answer(CsiCall.GetCapacity, "", "", () -> 1L << 40);
  }

  @Override
  public CompletionStage<NodeInfo> nodeInfo() {
    return answer(CsiCall.NodeGetInfo, "", "", () -> new NodeInfo(nodeId, 0));
  }

  @Override
  public CompletionStage<Void> nodeStage(
      String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode) {
    return answer(CsiCall.NodeStageVolume, volumeId, volumeId + " " + stagingPath, () -> null);
  }

  /**
   * Refused while a target of the volume is still published on the node, as the hostpath plugin
   * (and a real mount's busy staging path) refuses it.
   */
  @Override
  public CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath) {
    var still =
        published.entrySet().stream()
            .filter(e -> e.getValue().equals(volumeId))
            .map(Map.Entry::getKey)
            .toList();
    if (!still.isEmpty()) {
      return CompletableFuture.failedFuture(
          new CsiException(
              CsiCall.NodeUnstageVolume,
              CsiCode.FAILED_PRECONDITION,
              "volume " + volumeId + " is still published at " + still));
    }
    return answer(CsiCall.NodeUnstageVolume, volumeId, volumeId + " " + stagingPath, () -> null);
  }

  @Override
  public CompletionStage<Void> nodePublish(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      String targetPath,
      AccessMode mode,
      boolean readOnly) {
    return answer(
        CsiCall.NodePublishVolume,
        volumeId,
        volumeId + " " + targetPath + (readOnly ? " ro" : ""),
        () -> {
          published.put(targetPath, volumeId);
          return null;
        });
  }

  @Override
  public CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath) {
    return answer(
        CsiCall.NodeUnpublishVolume,
        volumeId,
        volumeId + " " + targetPath,
        () -> {
          published.remove(targetPath);
          return null;
        });
  }

  @Override
  public void close() {}
}
