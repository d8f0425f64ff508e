package dev.quartermaster.csi.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class RetryingCsiPluginTest {

  private final DeterministicEnv env = new DeterministicEnv(7);
  private final ScriptedPlugin plugin = new ScriptedPlugin(env);
  private final RetryPolicy policy =
      new RetryPolicy(4, Duration.ofMillis(100), Duration.ofMillis(250));
  private final RetryingCsiPlugin retrying = new RetryingCsiPlugin(plugin, env, policy);

  @Test
  void retriesRetryableCodesWithExponentialBackoffThenSucceeds() {
    plugin.failWith(CsiCode.ABORTED, CsiCode.UNAVAILABLE);
    var result = retrying.deleteVolume("v1").toCompletableFuture();

    env.runUntilIdle();
    assertThat(result).isNotDone();
    env.runUntil(result::isDone, Duration.ofSeconds(10));

    assertThat(result).isCompleted();
    // First try at 0, then 100 ms, then 200 ms later: backoff doubles.
    assertThat(plugin.callTimesMillis).containsExactly(0L, 100L, 300L);
  }

  @Test
  void backoffIsCappedAndTheLastErrorIsReported() {
    plugin.failWith(
        CsiCode.ABORTED,
        CsiCode.ABORTED,
        CsiCode.DEADLINE_EXCEEDED,
        CsiCode.UNAVAILABLE,
        CsiCode.ABORTED);
    var result = retrying.controllerUnpublish("v1", "n1").toCompletableFuture();

    env.runUntil(result::isDone, Duration.ofSeconds(10));

    assertThat(plugin.callTimesMillis).containsExactly(0L, 100L, 300L, 550L);
    var error = CsiException.of(CsiCall.ControllerUnpublishVolume, result.exceptionNow());
    assertThat(error.code()).isEqualTo(CsiCode.UNAVAILABLE);
    assertThat(error.call()).isEqualTo(CsiCall.ControllerUnpublishVolume);
  }

  @Test
  void doesNotRetryCodesThatNeedSomethingToChange() {
    plugin.failWith(CsiCode.FAILED_PRECONDITION);
    var result =
        retrying
            .controllerPublish("v1", "n1", AccessMode.SingleNodeWriter, false)
            .toCompletableFuture();

    env.runUntilIdle();

    assertThat(result).isCompletedExceptionally();
    assertThat(CsiException.of(CsiCall.ControllerPublishVolume, result.exceptionNow()).code())
        .isEqualTo(CsiCode.FAILED_PRECONDITION);
    assertThat(plugin.callTimesMillis).hasSize(1);
    assertThat(env.pendingTasks()).isZero();
  }

  @Test
  void backoffSchedule() {
    var p = new RetryPolicy(10, Duration.ofMillis(10), Duration.ofMillis(70));
    assertThat(
            List.of(2, 3, 4, 5, 6).stream().map(p::backoffBefore).map(Duration::toMillis).toList())
        .containsExactly(10L, 20L, 40L, 70L, 70L);
  }

  /** A plugin whose deleteVolume/controller calls fail with scripted codes, then succeed. */
  private static final class ScriptedPlugin implements CsiPlugin {
    private final DeterministicEnv env;
    private final Deque<CsiCode> failures = new ArrayDeque<>();
    final List<Long> callTimesMillis = new ArrayList<>();

    ScriptedPlugin(DeterministicEnv env) {
      this.env = env;
    }

    void failWith(CsiCode... codes) {
      failures.addAll(List.of(codes));
    }

    private <T> CompletionStage<T> next(CsiCall call, T value) {
      callTimesMillis.add(Duration.ofNanos(env.nanoTime()).toMillis());
      var code = failures.poll();
      return code == null
          ? CompletableFuture.completedFuture(value)
          : CompletableFuture.failedFuture(new CsiException(call, code, "scripted"));
    }

    @Override
    public CompletionStage<PluginInfo> pluginInfo() {
      return next(CsiCall.GetPluginInfo, new PluginInfo("x", "1", null, null));
    }

    @Override
    public CompletionStage<Boolean> probe() {
      return next(CsiCall.Probe, true);
    }

    @Override
    public CompletionStage<CreatedVolume> createVolume(
        String name, long capacityBytes, AccessMode mode, Map<String, String> parameters) {
      return next(CsiCall.CreateVolume, new CreatedVolume(name, capacityBytes, Map.of()));
    }

    @Override
    public CompletionStage<Void> deleteVolume(String volumeId) {
      return next(CsiCall.DeleteVolume, null);
    }

    @Override
    public CompletionStage<Map<String, String>> controllerPublish(
        String volumeId, String csiNodeId, AccessMode mode, boolean readOnly) {
      return next(CsiCall.ControllerPublishVolume, Map.of());
    }

    @Override
    public CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId) {
      return next(CsiCall.ControllerUnpublishVolume, null);
    }

    @Override
    public CompletionStage<Long> capacity() {
      return next(CsiCall.GetCapacity, 0L);
    }

    @Override
    public CompletionStage<NodeInfo> nodeInfo() {
      return next(CsiCall.NodeGetInfo, new NodeInfo("n", 0));
    }

    @Override
    public CompletionStage<Void> nodeStage(
        String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode) {
      return next(CsiCall.NodeStageVolume, null);
    }

    @Override
    public CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath) {
      return next(CsiCall.NodeUnstageVolume, null);
    }

    @Override
    public CompletionStage<Void> nodePublish(
        String volumeId,
        Map<String, String> publishContext,
        String stagingPath,
        String targetPath,
        AccessMode mode,
        boolean readOnly) {
      return next(CsiCall.NodePublishVolume, null);
    }

    @Override
    public CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath) {
      return next(CsiCall.NodeUnpublishVolume, null);
    }

    @Override
    public void close() {}
  }
}
