package dev.quartermaster.kubelet.plugin;

import static dev.quartermaster.kubelet.plugin.PluginFixture.A;
import static dev.quartermaster.kubelet.plugin.PluginFixture.B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.checkpoint.StateDirLockedException;
import dev.quartermaster.kubelet.claims.InMemoryClaimSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The plugin restarts mid-way (a DaemonSet pod replaced): the journal keeps what was prepared and
 * unprepared, so the new process answers as the old one would have.
 */
@Timeout(120)
class RestartTest {

  @Test
  void aRestartedPluginStillRefusesBWhileAIsPrepared() throws Exception {
    try (var node = new PluginFixture()) {
      var before = node.kubelet(KubeletClient.Version.V1).prepare(A);
      assertThat(before.error()).isEmpty();

      node.restart();
      var kubelet = node.kubelet(KubeletClient.Version.V1);
      var refused = kubelet.prepare(B);
      assertThat(refused.error()).contains(A.uid());
      assertThat(kubelet.prepare(A)).isEqualTo(before);
      assertThat(node.specsOnDisk()).containsExactly(A.uid());

      assertThat(kubelet.unprepare(A)).isEmpty();
      assertThat(kubelet.prepare(B).error()).isEmpty();
      assertThat(node.specsOnDisk()).containsExactly(B.uid());
    }
  }

  @Test
  void aTombstoneOutlivesARestart() throws Exception {
    try (var node = new PluginFixture()) {
      var kubelet = node.kubelet(KubeletClient.Version.V1BETA1);
      assertThat(kubelet.prepare(A).error()).isEmpty();
      assertThat(kubelet.unprepare(A)).isEmpty();

      node.restart();
      var late = node.kubelet(KubeletClient.Version.V1BETA1).prepare(A);
      assertThat(late.error()).contains("unprepared");
      assertThat(node.specsOnDisk()).isEmpty();
    }
  }

  @Test
  void aSecondPluginOnTheSameStateDirectoryIsRefused() throws Exception {
    try (var node = new PluginFixture()) {
      assertThatThrownBy(() -> KubeletPlugin.start(node.config(), new InMemoryClaimSource()))
          .isInstanceOf(StateDirLockedException.class);
      // The refused start left the running plugin's sockets alone.
      assertThat(node.kubelet(KubeletClient.Version.V1).prepare(A).error()).isEmpty();
    }
  }
}
