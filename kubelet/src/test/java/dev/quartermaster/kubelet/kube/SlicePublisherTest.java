package dev.quartermaster.kubelet.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.host.HostDeviceTree;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.kubelet.prepare.DeviceLook;
import dev.quartermaster.kubelet.prepare.NodeDevices;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's ResourceSlices on an API server (fabric8's in-memory one, in CRUD mode). */
@EnableKubernetesMockClient(crud = true)
class SlicePublisherTest {
  static KubernetesClient client;

  @TempDir Path dir;

  private SimulatedDeviceRoot root;
  private HostDeviceTree tree;

  @BeforeEach
  void node() throws Exception {
    client.resources(ResourceSlice.class).delete();
    root =
        SimulatedDeviceRoot.builder(dir.resolve("root"))
            .gpus(2)
            .model("NVIDIA H100 80GB HBM3", 85_899_345_920L)
            .channels(2)
            .regularFiles()
            .build();
    tree =
        new HostDeviceTree(
            DeviceRoot.at(root.root()),
            () -> new NvmlLoad.Unavailable("simulated"),
            Duration.ofSeconds(2));
  }

  private SlicePublisher publisher(String node) {
    var look = new DeviceLook(tree);
    return new SlicePublisher(
        new dev.quartermaster.core.env.SystemEnv(),
        client,
        Claims.DRIVER,
        node,
        () -> new NodeDevices(look.rescan(), tree.checkControlNodes()));
  }

  private List<ResourceSlice> slices() {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .sorted(Comparator.comparing(s -> s.getMetadata().getName()))
        .toList();
  }

  private static Device device(ResourceSlice slice, String name) {
    return slice.getSpec().getDevices().stream()
        .filter(d -> d.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void gpusAndChannelsWithTheirAttributesInTheNodesPool() {
    var publisher = publisher("node-1");
    assertThat(publisher.publish()).isEqualTo(new SlicePublisher.Outcome.Published(0, 4, 1));

    var slice = slices().getFirst();
    assertThat(slice.getMetadata().getName()).isEqualTo("node-1-gpu.quartermaster.dev-0");
    assertThat(slice.getSpec().getNodeName()).isEqualTo("node-1");
    assertThat(slice.getSpec().getPool().getName()).isEqualTo("node-1");
    assertThat(slice.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
    assertThat(slice.getSpec().getDevices())
        .extracting(Device::getName)
        .containsExactly("gpu-0", "gpu-1", "channel-0", "channel-1");
    var gpu = device(slice, "gpu-1");
    assertThat(gpu.getAttributes().get(KubeNames.TYPE).getString()).isEqualTo("gpu");
    assertThat(gpu.getAttributes().get(KubeNames.MODEL).getString())
        .isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(gpu.getAttributes().get(KubeNames.INDEX).getInt()).isEqualTo(1L);
    assertThat(gpu.getAttributes().get(KubeNames.UUID).getString()).startsWith("GPU-");
    assertThat(gpu.getAttributes().get(KubeNames.CONTROL_NODES_READY).getBool()).isTrue();
    assertThat(gpu.getCapacity().get(KubeNames.MEMORY).getValue().getNumericalAmount())
        .isEqualByComparingTo("85899345920");
    assertThat(gpu.getTaints()).isNullOrEmpty();
    var channel = device(slice, "channel-1");
    assertThat(channel.getAttributes().get(KubeNames.TYPE).getString()).isEqualTo("channel");
    assertThat(channel.getAttributes().get(KubeNames.CHANNEL_ID).getInt()).isEqualTo(1L);
  }

  @Test
  void nothingIsWrittenWhileTheNodeIsUnchanged() {
    var publisher = publisher("node-1");
    publisher.publish();
    var version = slices().getFirst().getMetadata().getResourceVersion();
    assertThat(publisher.publish()).isEqualTo(new SlicePublisher.Outcome.Unchanged());
    assertThat(slices().getFirst().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  /**
   * A kubelet that starts deletes every slice of its node (issue 43, item 4): the publisher
   * compares with what the API server holds, not with what it last wrote, so its next look
   * publishes again, at a higher generation.
   */
  @Test
  void slicesDeletedBehindThePublishersBackArePublishedAgainHigher() {
    var publisher = publisher("node-1");
    assertThat(publisher.publish()).isEqualTo(new SlicePublisher.Outcome.Published(0, 4, 1));
    client.resources(ResourceSlice.class).withLabel(KubeNames.NODE_LABEL, "node-1").delete();
    assertThat(slices()).isEmpty();

    assertThat(publisher.publish()).isEqualTo(new SlicePublisher.Outcome.Published(1, 4, 1));
    assertThat(slices())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(1L);
              assertThat(s.getSpec().getDevices()).hasSize(4);
            });
    assertThat(publisher.publish()).isEqualTo(new SlicePublisher.Outcome.Unchanged());
  }

  /** A slice changed or added behind its back is a difference too: the pool is written whole. */
  @Test
  void aSliceRewrittenBehindThePublishersBackIsWrittenAgain() {
    var publisher = publisher("node-1");
    publisher.publish();
    var slice = slices().getFirst();
    slice.getSpec().setDevices(List.of(slice.getSpec().getDevices().getFirst()));
    slice.getMetadata().getAnnotations().put(KubeNames.DEVICES_DIGEST, "stale");
    client.resource(slice).update();

    assertThat(publisher.publish()).isEqualTo(new SlicePublisher.Outcome.Published(1, 4, 1));
    assertThat(slices().getFirst().getSpec().getDevices()).hasSize(4);
  }

  @Test
  void aMissingUvmTaintsEveryGpuUntilItIsBack() throws Exception {
    root.removeNode(ControlNode.NVIDIA_UVM);
    var publisher = publisher("node-1");
    publisher.publish();
    var gpu = device(slices().getFirst(), "gpu-0");
    assertThat(gpu.getAttributes().get(KubeNames.CONTROL_NODES_READY).getBool()).isFalse();
    assertThat(gpu.getAttributes().get(KubeNames.CONTROL_NODES_PROBLEM).getString())
        .contains("nvidia-uvm");
    assertThat(gpu.getTaints())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.getKey()).isEqualTo(KubeNames.CONTROL_NODES_TAINT);
              assertThat(t.getValue()).isEqualTo("ControlNodeMissing");
              assertThat(t.getEffect()).isEqualTo("NoSchedule");
            });
    assertThat(device(slices().getFirst(), "channel-0").getTaints()).isNullOrEmpty();

    root.restoreNode(ControlNode.NVIDIA_UVM);
    assertThat(publisher.publish()).isEqualTo(new SlicePublisher.Outcome.Published(1, 4, 1));
    gpu = device(slices().getFirst(), "gpu-0");
    assertThat(gpu.getAttributes().get(KubeNames.CONTROL_NODES_READY).getBool()).isTrue();
    assertThat(gpu.getTaints()).isNullOrEmpty();
  }

  @Test
  void aRestartedPublisherGoesOnAboveTheGenerationPublished() throws Exception {
    publisher("node-1").publish();
    root.removeNode(ControlNode.NVIDIA_UVM);
    publisher("node-1").publish();
    // The API server holds what a third would write: nothing to do.
    assertThat(publisher("node-1").publish()).isEqualTo(new SlicePublisher.Outcome.Unchanged());
    root.restoreNode(ControlNode.NVIDIA_UVM);
    assertThat(publisher("node-1").publish())
        .isEqualTo(new SlicePublisher.Outcome.Published(2, 4, 1));
    assertThat(slices())
        .singleElement()
        .satisfies(s -> assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(2L));
  }

  @Test
  void moreThan128DevicesSpanSlicesAndShrinkingDeletesTheExtra() throws Exception {
    var big =
        SimulatedDeviceRoot.builder(dir.resolve("big"))
            .gpus(2)
            .channels(200)
            .regularFiles()
            .build();
    tree =
        new HostDeviceTree(
            DeviceRoot.at(big.root()),
            () -> new NvmlLoad.Unavailable("simulated"),
            Duration.ofSeconds(2));
    var publisher = publisher("node-2");
    assertThat(publisher.publish()).isEqualTo(new SlicePublisher.Outcome.Published(0, 202, 2));
    assertThat(slices())
        .allSatisfy(s -> assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2L));
    assertThat(slices().get(0).getSpec().getDevices()).hasSize(128);

    tree =
        new HostDeviceTree(
            DeviceRoot.at(root.root()),
            () -> new NvmlLoad.Unavailable("simulated"),
            Duration.ofSeconds(2));
    assertThat(publisher("node-2").publish())
        .isEqualTo(new SlicePublisher.Outcome.Published(1, 4, 1));
    assertThat(slices())
        .singleElement()
        .satisfies(s -> assertThat(s.getSpec().getDevices()).hasSize(4));
  }

  @Test
  void anotherNodesSlicesAreLeftAlone() {
    publisher("node-1").publish();
    publisher("node-2").publish();
    assertThat(slices())
        .extracting(s -> s.getSpec().getNodeName())
        .containsExactly("node-1", "node-2");
  }
}
