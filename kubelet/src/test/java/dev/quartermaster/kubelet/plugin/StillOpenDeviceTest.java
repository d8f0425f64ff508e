package dev.quartermaster.kubelet.plugin;

import static dev.quartermaster.kubelet.plugin.PluginFixture.A;
import static dev.quartermaster.kubelet.plugin.PluginFixture.B;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.host.DeviceHolders;
import dev.quartermaster.agent.host.HolderScan;
import dev.quartermaster.agent.host.ProcDeviceHolders;
import dev.quartermaster.kubelet.plugin.KubeletCalls.WireDevice;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seed 1 with the kubelet as the trigger (issue 43, item 3): pod A is force-deleted inside the
 * kubelet's reconcile window, so A's claim is unprepared while A's container still runs with the
 * GPU, and the prepare of replacement B's claim for the same GPU arrives. A real process here (a
 * {@code sleep} with the simulated GPU node open) is A's container.
 */
@Timeout(120)
class StillOpenDeviceTest {

  /** A's container: a real process with {@code node} open; returns once it is open. */
  private static Process container(Path node) throws Exception {
    var process =
        new ProcessBuilder(
                "sh", "-c", "exec 3<\"$1\"; echo open; exec sleep 600", "sh", node.toString())
            .redirectErrorStream(true)
            .start();
    var line =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
            .readLine();
    assertThat(line).isEqualTo("open");
    return process;
  }

  private static Path gpu0(PluginFixture node) {
    return node.root.devDir().resolve("nvidia0");
  }

  @Test
  void aPrepareWaitsNamingTheProcessThatStillHasTheGpuOpenAndSucceedsOnceItExits()
      throws Exception {
    try (var node = new PluginFixture()) {
      var kubelet = node.kubelet(KubeletClient.Version.V1);
      assertThat(kubelet.prepare(A).error()).isEmpty();
      var a = container(gpu0(node));
      try {
        assertThat(kubelet.unprepare(A)).isEmpty(); // the reconcile tick, A still running

        var refused = kubelet.prepare(B);
        assertThat(refused.prepared()).isFalse();
        assertThat(refused.error())
            .contains("not yet (retry)")
            .contains("gpu-0")
            .contains("pid " + a.pid())
            .contains("sleep");
        assertThat(node.specsOnDisk()).isEmpty();
        assertThat(node.plugin().ledger().holding()).isEmpty();
      } finally {
        a.destroyForcibly();
        a.waitFor();
      }

      var retried = kubelet.prepare(B); // the kubelet's retry, A's container gone
      assertThat(retried.error()).isEmpty();
      assertThat(retried.devices()).extracting(WireDevice::device).containsExactly("gpu-0");
      assertThat(node.specsOnDisk()).containsExactly(B.uid());
    }
  }

  /**
   * Today's behaviour, kept: a plugin that takes an unprepare as proof that nobody uses the device
   * prepares B while A's container still has the GPU open, which the host's own {@code /proc} shows
   * at the moment B is answered.
   */
  @Test
  void theNaivePluginPreparesTheGpuWhileAProcessStillHasItOpen() throws Exception {
    DeviceHolders unasked = devices -> HolderScan.FREE;
    try (var node = new PluginFixture(null, unasked)) {
      var kubelet = node.kubelet(KubeletClient.Version.V1);
      assertThat(kubelet.prepare(A).error()).isEmpty();
      var a = container(gpu0(node));
      try {
        assertThat(kubelet.unprepare(A)).isEmpty();

        assertThat(kubelet.prepare(B).error()).isEmpty();
        var stillOpen =
            ProcDeviceHolders.byPath()
                .scan(
                    java.util.Map.of(
                        "gpu-0",
                        node.plugin().look().inventory().gpu("gpu-0").orElseThrow().node()));
        assertThat(stillOpen.holders())
            .as("B was prepared while A's container holds the GPU: two pods, one GPU")
            .anySatisfy(h -> assertThat(h.pid()).isEqualTo(a.pid()));
      } finally {
        a.destroyForcibly();
        a.waitFor();
      }
    }
  }
}
