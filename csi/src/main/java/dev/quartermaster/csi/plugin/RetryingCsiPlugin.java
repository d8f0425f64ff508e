package dev.quartermaster.csi.plugin;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.core.env.Env;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A {@link CsiPlugin} that makes each call again while it fails with a {@linkplain
 * CsiCode#retryable() retryable} code, backing off exponentially through the {@link Env}'s timers
 * (never by sleeping, so it runs the same in virtual time). After the last attempt, or on a code
 * that is not retryable, the call fails with the plugin's last {@link CsiException}.
 *
 * <p>Safe because every CSI call we make is idempotent: a retried call continues where the first
 * one left off (spec, "Timeouts").
 *
 * <p>A retry is scheduled from the thread that completed the failed call; under a single-threaded
 * {@code DeterministicEnv}, the delegate must therefore complete its calls on the env's thread (as
 * the simulation's plugins do).
 */
public final class RetryingCsiPlugin implements CsiPlugin {

  private final CsiPlugin delegate;
  private final Env env;
  private final RetryPolicy policy;

  public RetryingCsiPlugin(CsiPlugin delegate, Env env, RetryPolicy policy) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.env = Objects.requireNonNull(env, "env");
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  @Override
  public CompletionStage<PluginInfo> pluginInfo() {
    return retry(CsiCall.GetPluginInfo, delegate::pluginInfo);
  }

  @Override
  public CompletionStage<Boolean> probe() {
    return retry(CsiCall.Probe, delegate::probe);
  }

  @Override
  public CompletionStage<CreatedVolume> createVolume(
      String name, long capacityBytes, AccessMode mode, Map<String, String> parameters) {
    return retry(
        CsiCall.CreateVolume, () -> delegate.createVolume(name, capacityBytes, mode, parameters));
  }

  @Override
  public CompletionStage<Void> deleteVolume(String volumeId) {
    return retry(CsiCall.DeleteVolume, () -> delegate.deleteVolume(volumeId));
  }

  @Override
  public CompletionStage<Map<String, String>> controllerPublish(
      String volumeId, String csiNodeId, AccessMode mode, boolean readOnly) {
    return retry(
        CsiCall.ControllerPublishVolume,
        () -> delegate.controllerPublish(volumeId, csiNodeId, mode, readOnly));
  }

  @Override
  public CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId) {
    return retry(
        CsiCall.ControllerUnpublishVolume, () -> delegate.controllerUnpublish(volumeId, csiNodeId));
  }

  @Override
  public CompletionStage<Long> capacity() {
    return retry(CsiCall.GetCapacity, delegate::capacity);
  }

  @Override
  public CompletionStage<NodeInfo> nodeInfo() {
    return retry(CsiCall.NodeGetInfo, delegate::nodeInfo);
  }

  @Override
  public CompletionStage<Void> nodeStage(
      String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode) {
    return retry(
        CsiCall.NodeStageVolume,
        () -> delegate.nodeStage(volumeId, publishContext, stagingPath, mode));
  }

  @Override
  public CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath) {
    return retry(CsiCall.NodeUnstageVolume, () -> delegate.nodeUnstage(volumeId, stagingPath));
  }

  @Override
  public CompletionStage<Void> nodePublish(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      String targetPath,
      AccessMode mode,
      boolean readOnly) {
    return retry(
        CsiCall.NodePublishVolume,
        () ->
            delegate.nodePublish(
                volumeId, publishContext, stagingPath, targetPath, mode, readOnly));
  }

  @Override
  public CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath) {
    return retry(CsiCall.NodeUnpublishVolume, () -> delegate.nodeUnpublish(volumeId, targetPath));
  }

  @Override
  public void close() {
    delegate.close();
  }

  private <T> CompletionStage<T> retry(CsiCall call, Supplier<CompletionStage<T>> attempt) {
    var result = new CompletableFuture<T>();
    attempt(call, attempt, 1, result);
    return result;
  }

  private <T> void attempt(
      CsiCall call, Supplier<CompletionStage<T>> attempt, int n, CompletableFuture<T> result) {
    CompletionStage<T> stage;
    try {
      stage = attempt.get();
    } catch (RuntimeException e) {
      // A plugin that throws instead of failing its stage is treated the same way.
      stage = CompletableFuture.failedFuture(e);
    }
    stage.whenComplete(
        (value, failure) -> {
          if (failure == null) {
            result.complete(value);
            return;
          }
          var error = CsiException.of(call, failure);
          if (!error.code().retryable() || n >= policy.attempts()) {
            result.completeExceptionally(error);
            return;
          }
          env.schedule(policy.backoffBefore(n + 1), () -> attempt(call, attempt, n + 1, result));
        });
  }
}
