package dev.quartermaster.kubelet.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.kubelet.kube.KubeNames;
import dev.quartermaster.kubelet.kube.NodeSlices;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a node with shared GPUs publishes (KEP-4815, KEP-5075), within the v1.36 API's limits: MIG
 * counter sets in slices of their own, at most 8 to a slice; slice devices consuming them, at most
 * 64 to a slice; an MPS GPU as one device allocated many times, with a request policy per capacity.
 */
@Timeout(120)
class SharedSlicesTest {

  @Test
  void aMigGpuPublishesItsCountersApartAndEveryPlacementConsumingThem() throws Exception {
    try (var node = new PluginFixture(PluginSharing.parse(List.of("gpu-0=mig")), 2)) {
      var publication = NodeSlices.publication(node.plugin().look());

      assertThat(publication.counterSets()).singleElement();
      var set = publication.counterSets().getFirst();
      assertThat(set.getName()).isEqualTo("gpu-0");
      assertThat(set.getCounters()).containsKey("compute").hasSize(9);
      var migs = publication.devices().stream().filter(d -> type(d).equals("mig")).toList();
      assertThat(migs).hasSizeGreaterThan(10);
      for (var d : migs) {
        assertThat(d.getName()).startsWith("gpu-0-mig-");
        assertThat(d.getConsumesCounters()).singleElement();
        assertThat(d.getConsumesCounters().getFirst().getCounterSet()).isEqualTo("gpu-0");
        assertThat(d.getAttributes().get("start").getInt()).isNotNull();
        assertThat(d.getAttributes().get("profile").getString()).contains("g.");
        assertThat(d.getAttributes().get(KubeNames.UUID).getString()).isNotBlank();
      }
      assertThat(publication.devices()).extracting(Device::getName).contains("gpu-1");
      assertThat(publication.devices()).extracting(Device::getName).doesNotContain("gpu-0");

      var slices = NodeSlices.slices("gpu.quartermaster.dev", "node-1", 3, publication);
      assertThat(slices.getFirst().getSpec().getSharedCounters()).hasSize(1);
      assertThat(slices.getFirst().getSpec().getDevices()).isNullOrEmpty();
      for (var s : slices.subList(1, slices.size())) {
        assertThat(s.getSpec().getSharedCounters()).isNullOrEmpty();
        assertThat(s.getSpec().getDevices()).hasSizeLessThanOrEqualTo(64);
      }
      assertThat(slices)
          .allSatisfy(s -> assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2));
    }
  }

  @Test
  void tenMigGpusNeedTwoCounterSliceAndDeviceSlicesOfAtMost64() throws Exception {
    var wish = new ArrayList<String>();
    for (int i = 0; i < 10; i++) {
      wish.add("gpu-" + i + "=mig");
    }
    try (var node = new PluginFixture(PluginSharing.parse(wish), 10)) {
      var publication = NodeSlices.publication(node.plugin().look());
      var slices = NodeSlices.slices("gpu.quartermaster.dev", "node-1", 1, publication);

      var counterSlices = slices.stream().filter(SharedSlicesTest::hasCounters).toList();
      assertThat(counterSlices)
          .extracting(s -> s.getSpec().getSharedCounters().size())
          .containsExactly(8, 2);
      var devices = slices.stream().filter(s -> !hasCounters(s)).toList();
      assertThat(devices)
          .allSatisfy(s -> assertThat(s.getSpec().getDevices()).hasSizeLessThanOrEqualTo(64));
      assertThat(devices.stream().mapToInt(s -> s.getSpec().getDevices().size()).sum())
          .isEqualTo(publication.devices().size());
      assertThat(slices).extracting(s -> s.getMetadata().getName()).doesNotHaveDuplicates();
    }
  }

  @Test
  void anMpsGpuIsOneDeviceAllocatedManyTimesWithARequestPolicyPerCapacity() throws Exception {
    try (var node = new PluginFixture(PluginSharing.parse(List.of("gpu-1=mps:4")), 2)) {
      var publication = NodeSlices.publication(node.plugin().look());
      var mps =
          publication.devices().stream()
              .filter(d -> d.getName().equals("gpu-1-mps"))
              .findFirst()
              .orElseThrow();

      assertThat(type(mps)).isEqualTo("mps");
      assertThat(mps.getAllowMultipleAllocations()).isTrue();
      var compute = mps.getCapacity().get(KubeNames.COMPUTE);
      assertThat(compute.getValue()).isEqualTo(new Quantity("100"));
      assertThat(compute.getRequestPolicy().getValidRange().getStep()).isEqualTo(new Quantity("5"));
      var memory = mps.getCapacity().get(KubeNames.MEMORY);
      assertThat(memory.getRequestPolicy().getValidRange().getStep())
          .isEqualTo(new Quantity(Long.toString(1L << 30)));
      // A request that names no share takes the whole GPU: the defaults are the capacities.
      assertThat(memory.getRequestPolicy().getDefault()).isEqualTo(memory.getValue());
      var clients = mps.getCapacity().get(KubeNames.CLIENTS);
      assertThat(clients.getValue()).isEqualTo(new Quantity("4"));
      assertThat(clients.getRequestPolicy().getValidValues()).containsExactly(new Quantity("1"));
      assertThat(publication.devices()).extracting(Device::getName).doesNotContain("gpu-1");
      assertThat(publication.counterSets()).isEmpty();
    }
  }

  @Test
  void aTimeSlicedGpuPublishesItsReplicas() throws Exception {
    try (var node = new PluginFixture(PluginSharing.parse(List.of("gpu-0=timeslice:3")), 2)) {
      var names =
          NodeSlices.publication(node.plugin().look()).devices().stream()
              .filter(d -> type(d).equals("timeslice"))
              .map(Device::getName)
              .toList();
      assertThat(names).hasSize(3).allMatch(n -> n.startsWith("gpu-0-"));
    }
  }

  private static boolean hasCounters(io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice s) {
    return s.getSpec().getSharedCounters() != null && !s.getSpec().getSharedCounters().isEmpty();
  }

  private static String type(Device d) {
    return d.getAttributes().get(KubeNames.TYPE).getString();
  }
}
