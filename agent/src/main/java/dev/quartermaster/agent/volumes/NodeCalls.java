package dev.quartermaster.agent.volumes;

import dev.quartermaster.agent.plugins.CsiCalls;
import dev.quartermaster.agent.plugins.NodePlugin;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.core.serial.Serializer;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The node side of CSI for this node's volumes: NodeStage + NodePublish for a claim, NodeUnpublish
 * (+ NodeUnstage) for released ones, each volume's calls one at a time through the {@link
 * dev.quartermaster.core.serial.KeyedSerializer}. Every call is idempotent, so after a crash the
 * same calls are simply made again.
 *
 * <p>A claim, once handed to {@link #release}, is never published again by this agent (a publish
 * queued behind its release fails instead): its task incarnation is over, and a mount made after
 * the unpublish would be left behind with no claim to release it.
 */
public final class NodeCalls {
  private final VolumePaths paths;
  private final Serializer<String> gate;

  /**
   * Volumes this agent staged and has not unstaged since; forgotten on restart (staging again is
   * harmless).
   */
  private final Set<String> staged = ConcurrentHashMap.newKeySet();

  /**
   * {@code volume/taskUid} of claims released here: never published again, their task never
   * started.
   */
  private final Set<String> released = ConcurrentHashMap.newKeySet();

  /**
   * Orders the releaser's "no process runs for it: retire" against the task's "none retired:
   * start".
   */
  private final Object decisions = new Object();

  public NodeCalls(VolumePaths paths, Serializer<String> gate) {
    this.paths = Objects.requireNonNull(paths, "paths");
    this.gate = Objects.requireNonNull(gate, "gate");
  }

  public VolumePaths paths() {
    return paths;
  }

  /**
   * Stages (if the plugin stages and this agent has not yet) and publishes {@code volumeClaim}'s
   * volume; returns the target path.
   */
  public CompletionStage<String> publish(
      Volume volume, VolumeClaim volumeClaim, boolean readOnly, NodePlugin plugin) {
    var name = volume.metadata().name();
    var id = volume.status().externalId();
    var mode = volume.spec().accessMode();
    var staging = paths.staging(name);
    var target = paths.target(volumeClaim.taskUid(), name);
    var client = plugin.client();
    return gate.submit(
        name,
        () -> {
          if (released.contains(key(name, volumeClaim.taskUid()))) {
            return CompletableFuture.<String>failedFuture(
                new CsiException(
                    CsiCall.NodePublishVolume,
                    CsiCode.FAILED_PRECONDITION,
                    "the claim of task " + volumeClaim.task() + " on " + name + " was released"));
          }
          CompletableFuture<Void> stage =
              plugin.stages() && !staged.contains(name)
                  ? CsiCalls.named(
                          CsiCall.NodeStageVolume,
                          () -> client.nodeStage(id, volumeClaim.publishContext(), staging, mode))
                      .thenRun(() -> staged.add(name))
                  : CompletableFuture.completedFuture(null);
          return stage
              .thenCompose(
                  v ->
                      CsiCalls.named(
                          CsiCall.NodePublishVolume,
                          () ->
                              client.nodePublish(
                                  id,
                                  volumeClaim.publishContext(),
                                  plugin.stages() ? staging : "",
                                  target,
                                  mode,
                                  readOnly)))
              .thenApply(v -> target);
        });
  }

  /**
   * NodeUnpublish of the targets of task incarnations {@code taskUids} (claims released, or
   * publications no claim names), then NodeUnstage when {@code unstage} (no live claim of this node
   * needs the staging path) and the plugin stages.
   */
  public CompletionStage<Void> release(
      Volume volume, Collection<String> taskUids, boolean unstage, NodePlugin plugin) {
    var name = volume.metadata().name();
    var id = volume.status().externalId();
    var client = plugin.client();
    taskUids.forEach(uid -> released.add(key(name, uid)));
    var uids = List.copyOf(taskUids);
    return gate.submit(
        name,
        () -> {
          CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
          for (var uid : uids) {
            var target = paths.target(uid, name);
            chain =
                chain.thenCompose(
                    v ->
                        CsiCalls.named(
                            CsiCall.NodeUnpublishVolume, () -> client.nodeUnpublish(id, target)));
          }
          if (unstage && plugin.stages()) {
            chain =
                chain
                    .thenCompose(
                        v ->
                            CsiCalls.named(
                                CsiCall.NodeUnstageVolume,
                                () -> client.nodeUnstage(id, paths.staging(name))))
                    .thenRun(() -> staged.remove(name));
          }
          return chain;
        });
  }

  /**
   * Runs {@code decision} atomically with respect to every other one: the releaser retires claims
   * and a task starts its process through here, so a claim is never retired while its task's
   * process is being started, nor a process started with a retired claim (I2).
   */
  <T> T exclusively(Supplier<T> decision) {
    synchronized (decisions) {
      return decision.get();
    }
  }

  /**
   * The claim of incarnation {@code taskUid} on {@code volume} is over on this node: never
   * published or used again.
   */
  void retire(String volume, String taskUid) {
    released.add(key(volume, taskUid));
  }

  boolean retired(String volume, String taskUid) {
    return released.contains(key(volume, taskUid));
  }

  private static String key(String volume, String taskUid) {
    return volume + "/" + taskUid;
  }
}
