package dev.quartermaster.kubelet.plugin;

import static dev.quartermaster.kubelet.plugin.PluginFixture.A;
import static dev.quartermaster.kubelet.plugin.PluginFixture.B;
import static dev.quartermaster.kubelet.plugin.PluginFixture.NODE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.kubelet.claims.AllocatedDevice;
import dev.quartermaster.kubelet.claims.ConsumedShare;
import dev.quartermaster.kubelet.claims.KubeClaim;
import dev.quartermaster.kubelet.plugin.KubeletCalls.WireDevice;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the scheduler allocates of shared GPUs, prepared through the plugin's socket: MPS shares
 * (one device allocated many times, KEP-5075) recorded in the ledger by their size, and MIG slices
 * judged by their GPU's counters (KEP-4815) — so an allocation the published counters would have
 * refused, as the scheduler makes for a plugin that publishes slices without them, is refused here.
 */
@Timeout(120)
class SharedPrepareTest {
  private static final long GIB = 1L << 30;
  private static final KubeClaim C =
      new KubeClaim("default", "train-c", "0c0c0c0c-0000-4000-8000-00000000000c");

  private static PluginFixture node() {
    return new PluginFixture(PluginSharing.parse(List.of("gpu-0=mig", "gpu-1=mps:4")), 2);
  }

  private static AllocatedDevice share(long compute, long gib, String id) {
    return new AllocatedDevice(
        NODE,
        "gpu-1-mps",
        List.of("share"),
        Optional.of(new ConsumedShare(compute, gib * GIB, id)));
  }

  @Test
  void twoHalfSharesArePreparedUnderTheirSizesAndAThirdWaitsUntilOneGoes() throws Exception {
    try (var node = node()) {
      node.allocate(A, List.of(share(50, 20, "share-a")));
      node.allocate(B, List.of(share(50, 20, "share-b")));
      node.allocate(C, List.of(share(10, 1, "share-c")));
      var kubelet = node.kubelet(KubeletClient.Version.V1);

      var a = kubelet.prepare(A);
      var b = kubelet.prepare(B);
      assertThat(a.error()).isEmpty();
      assertThat(b.error()).isEmpty();
      // The kubelet is told of the device it allocated; the ledger's name is in the CDI id.
      assertThat(a.devices()).extracting(WireDevice::device).containsExactly("gpu-1-mps");
      assertThat(a.devices().getFirst().cdiIds())
          .singleElement()
          .asString()
          .endsWith(A.uid() + "-gpu-1-mps-50pct-20gib-0");
      assertThat(b.devices().getFirst().cdiIds())
          .singleElement()
          .asString()
          .endsWith(B.uid() + "-gpu-1-mps-50pct-20gib-1");
      assertThat(kubelet.prepare(A)).isEqualTo(a);

      var c = kubelet.prepare(C);
      assertThat(c.prepared()).isFalse();
      assertThat(c.error()).contains("gpu-1");

      assertThat(kubelet.unprepare(A)).isEmpty();
      assertThat(kubelet.prepare(C).error()).isEmpty();
      assertThat(node.plugin().ledger().toString())
          .contains("gpu-1-mps-10pct-1gib-0")
          .contains("gpu-1-mps-50pct-20gib-1");
    }
  }

  @Test
  void aShareOutsideTheRequestPolicyOrAnMpsDeviceWithoutAShareIsRefusedNamingIt() throws Exception {
    try (var node = node()) {
      node.allocate(A, List.of(share(7, 20, "share-a")));
      node.allocate(
          B, List.of(new AllocatedDevice(NODE, "gpu-1-mps", List.of("share"), Optional.empty())));
      var kubelet = node.kubelet(KubeletClient.Version.V1);

      assertThat(kubelet.prepare(A).error())
          .contains("consumedCapacity compute=7")
          .contains("multiple of 5");
      assertThat(kubelet.prepare(B).error()).contains("without a share");
      assertThat(node.specsOnDisk()).isEmpty();
    }
  }

  /**
   * The naive variant: a plugin publishing MIG slices without their counters lets the scheduler
   * allocate a 4g slice and a 3g slice at the same memory positions. The ledger judges by the
   * counters and refuses the second, naming the first's claim.
   */
  @Test
  void overlappingMigSlicesAllocatedAsIfIndependentAreRefusedByTheCounters() throws Exception {
    var profiles = MigGeometry.H100_80GB.placements();
    var fourG =
        profiles.stream().filter(p -> p.profile().computeSlices() == 4).findFirst().orElseThrow();
    var threeG =
        profiles.stream()
            .filter(p -> p.profile().computeSlices() == 3 && p.start() == fourG.start())
            .findFirst()
            .orElseThrow();
    var first = MigGeometry.deviceName("gpu-0", fourG);
    var second = MigGeometry.deviceName("gpu-0", threeG);
    try (var node = node()) {
      node.allocate(A, List.of(new AllocatedDevice(NODE, first, List.of("slice"))));
      node.allocate(B, List.of(new AllocatedDevice(NODE, second, List.of("slice"))));
      var kubelet = node.kubelet(KubeletClient.Version.V1);

      assertThat(kubelet.prepare(A).error()).isEmpty();
      var refused = kubelet.prepare(B);
      assertThat(refused.prepared()).isFalse();
      assertThat(refused.error()).contains(A.uid());
      assertThat(node.specsOnDisk()).containsExactly(A.uid());

      assertThat(kubelet.unprepare(A)).isEmpty();
      assertThat(kubelet.prepare(B).error()).isEmpty();
    }
  }
}
