package dev.quartermaster.kubelet.plugin;

import static dev.quartermaster.kubelet.plugin.PluginFixture.A;
import static dev.quartermaster.kubelet.plugin.PluginFixture.B;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.kubelet.claims.AllocatedDevice;
import dev.quartermaster.kubelet.claims.ClaimAllocation;
import dev.quartermaster.kubelet.claims.ClaimSource;
import dev.quartermaster.kubelet.claims.KubeClaim;
import dev.quartermaster.kubelet.plugin.KubeletCalls.WireDevice;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * NodePrepareResources and NodeUnprepareResources over the DRA socket, in both API versions: the
 * answers the kubelet gets, and the CDI specs on disk that a container runtime would use.
 */
@Timeout(120)
class PrepareTest {
  private static final KubeClaim NEVER =
      new KubeClaim("default", "never", "0c0c0c0c-0000-4000-8000-00000000000c");

  @ParameterizedTest
  @EnumSource(KubeletClient.Version.class)
  void aPreparedClaimGetsItsDeviceWithTheAgentsCdiIdAndARepeatGetsTheSame(
      KubeletClient.Version version) throws Exception {
    try (var node = new PluginFixture()) {
      var kubelet = node.kubelet(version);
      var first = kubelet.prepare(A);

      assertThat(first.error()).isEmpty();
      assertThat(first.devices())
          .containsExactly(
              new WireDevice(
                  "node-1",
                  "gpu-0",
                  List.of("gpu"),
                  List.of("quartermaster.dev/gpu=" + A.uid() + "-gpu-0")));
      assertThat(node.specsOnDisk()).containsExactly(A.uid());
      assertThat(kubelet.prepare(A)).isEqualTo(first);
      assertThat(node.specsOnDisk()).containsExactly(A.uid());
    }
  }

  @ParameterizedTest
  @EnumSource(KubeletClient.Version.class)
  void aDeviceHeldByAnotherClaimIsRefusedNamingItUntilThatClaimIsUnprepared(
      KubeletClient.Version version) throws Exception {
    try (var node = new PluginFixture()) {
      var kubelet = node.kubelet(version);
      assertThat(kubelet.prepare(A).error()).isEmpty();

      var refused = kubelet.prepare(B);
      assertThat(refused.prepared()).isFalse();
      assertThat(refused.error()).contains("gpu-0").contains(A.uid());
      assertThat(node.specsOnDisk()).containsExactly(A.uid());

      assertThat(kubelet.unprepare(A)).isEmpty();
      assertThat(node.specsOnDisk()).isEmpty();
      var retried = kubelet.prepare(B);
      assertThat(retried.error()).isEmpty();
      assertThat(retried.devices()).extracting(WireDevice::device).containsExactly("gpu-0");
      assertThat(node.specsOnDisk()).containsExactly(B.uid());
    }
  }

  @ParameterizedTest
  @EnumSource(KubeletClient.Version.class)
  void anUnknownClaimsUnprepareSucceedsAndItsLatePrepareIsRefused(KubeletClient.Version version)
      throws Exception {
    try (var node = new PluginFixture()) {
      node.allocate(NEVER, "gpu-1");
      var kubelet = node.kubelet(version);
      assertThat(kubelet.unprepare(NEVER)).isEmpty();
      assertThat(kubelet.unprepare(NEVER)).isEmpty();

      // The prepare that this unprepare overtook arrives after all: the tombstone refuses it.
      var late = kubelet.prepare(NEVER);
      assertThat(late.error()).contains("unprepared");
      assertThat(node.specsOnDisk()).isEmpty();
      assertThat(node.plugin().ledger().holding()).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(KubeletClient.Version.class)
  void aLatePrepareRetryAfterUnprepareCannotResurrectTheClaim(KubeletClient.Version version)
      throws Exception {
    try (var node = new PluginFixture()) {
      var kubelet = node.kubelet(version);
      assertThat(kubelet.prepare(A).error()).isEmpty();
      assertThat(kubelet.unprepare(A)).isEmpty();

      var late = kubelet.prepare(A);
      assertThat(late.error()).contains(A.uid()).contains("unprepared");
      assertThat(node.specsOnDisk()).isEmpty();
      // The device is free for the claim that replaced A.
      assertThat(kubelet.prepare(B).error()).isEmpty();
      assertThat(node.specsOnDisk()).containsExactly(B.uid());
    }
  }

  @Test
  void aDeviceOfAnotherNodesPoolIsRefused() throws Exception {
    try (var node = new PluginFixture()) {
      node.claims.allocate(A, List.of(new AllocatedDevice("node-2", "gpu-0", List.of("gpu"))));
      var answer = node.kubelet(KubeletClient.Version.V1).prepare(A);
      assertThat(answer.error()).contains("node-2/gpu-0").contains("node-1");
      assertThat(node.plugin().ledger().claims()).isEmpty();
    }
  }

  @Test
  void aDeviceThisNodeDoesNotHaveIsRefusedAndReservesNothing() throws Exception {
    try (var node = new PluginFixture()) {
      node.allocate(A, "gpu-7");
      var answer = node.kubelet(KubeletClient.Version.V1).prepare(A);
      assertThat(answer.error()).contains("gpu-7");
      assertThat(node.plugin().ledger().holding()).isEmpty();
    }
  }

  @Test
  void aClaimTheSourceDoesNotKnowIsRefusedAndUnpreparesFine() throws Exception {
    try (var node = new PluginFixture()) {
      node.claims.delete(A.uid());
      var kubelet = node.kubelet(KubeletClient.Version.V1);
      assertThat(kubelet.prepare(A).error()).contains("not found");
      assertThat(kubelet.unprepare(A)).isEmpty();
    }
  }

  @Test
  void aClaimListedForTwoRequestsGetsOneDeviceServingBoth() throws Exception {
    try (var node = new PluginFixture()) {
      node.claims.allocate(
          A,
          List.of(
              new AllocatedDevice("node-1", "gpu-1", List.of("trainer")),
              new AllocatedDevice("node-1", "gpu-1", List.of("logger"))));
      var answer = node.kubelet(KubeletClient.Version.V1).prepare(A);
      assertThat(answer.error()).isEmpty();
      assertThat(answer.devices())
          .containsExactly(
              new WireDevice(
                  "node-1",
                  "gpu-1",
                  List.of("trainer", "logger"),
                  List.of("quartermaster.dev/gpu=" + A.uid() + "-gpu-1")));
    }
  }

  @Test
  void withoutTheKubernetesApiEveryPrepareSaysWhyAndUnprepareStillWorks() throws Exception {
    ClaimSource down = claim -> new ClaimAllocation.Unavailable("the API server is down");
    try (var node = new PluginFixture(down)) {
      var kubelet = node.kubelet(KubeletClient.Version.V1);
      assertThat(kubelet.prepare(A).error()).contains("the API server is down");
      assertThat(kubelet.unprepare(A)).isEmpty();
      assertThat(node.specsOnDisk()).isEqualTo(Set.of());
    }
  }
}
