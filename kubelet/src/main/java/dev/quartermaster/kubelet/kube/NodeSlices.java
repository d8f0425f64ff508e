package dev.quartermaster.kubelet.kube;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.kubelet.prepare.NodeDevices;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a node publishes, computed from one look at it (no I/O): its GPUs and IMEX channels as
 * {@code resource.k8s.io/v1} devices, in slices of at most 128, all in the pool named after the
 * node, as the pool {@link dev.quartermaster.kubelet.prepare.DraPreparer} checks at prepare.
 *
 * <p>A GPU carries {@code type}, {@code uuid}, {@code model}, {@code index}, {@code minor}, the
 * standard {@code resource.kubernetes.io/pciBusID}, {@code controlNodesReady} and its memory as
 * capacity; a channel {@code type} and {@code id}. While a control node is missing, every GPU is
 * published not ready and tainted (the package doc argues why both).
 */
public final class NodeSlices {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private NodeSlices() {}

  /** The devices the node offers now, GPUs first, each list in index order. */
  public static List<Device> devices(NodeDevices look) {
    var out = new ArrayList<Device>();
    var ready = look.controlNodes().ready();
    look.inventory().gpus().stream()
        .sorted(java.util.Comparator.comparingInt(DiscoveredGpu::index))
        .forEach(gpu -> out.add(gpu(gpu, look.controlNodes(), ready)));
    look.inventory().channels().channels().stream()
        .sorted(java.util.Comparator.comparingInt(DiscoveredChannel::id))
        .forEach(channel -> out.add(channel(channel)));
    return out;
  }

  /**
   * The slices that publish {@code devices} at {@code generation}: {@code <node>-<driver>-<i>},
   * each naming the pool's slice count, so the scheduler knows when it has seen the whole pool. No
   * devices still gives one (empty) slice: the pool exists and is known to be empty.
   */
  public static List<ResourceSlice> slices(
      String driver, String node, long generation, List<Device> devices) {
    var chunks = new ArrayList<List<Device>>();
    for (int i = 0; i < devices.size(); i += KubeNames.MAX_DEVICES_PER_SLICE) {
      chunks.add(devices.subList(i, Math.min(devices.size(), i + KubeNames.MAX_DEVICES_PER_SLICE)));
    }
    if (chunks.isEmpty()) {
      chunks.add(List.of());
    }
    var out = new ArrayList<ResourceSlice>();
    for (int i = 0; i < chunks.size(); i++) {
      out.add(
          new ResourceSliceBuilder()
              .withMetadata(
                  new ObjectMetaBuilder()
                      .withName(sliceName(driver, node, i))
                      .withLabels(Map.of(KubeNames.NODE_LABEL, node))
                      .withAnnotations(Map.of(KubeNames.DEVICES_DIGEST, digest(chunks.get(i))))
                      .build())
              .withNewSpec()
              .withDriver(driver)
              .withNodeName(node)
              .withNewPool()
              .withName(node)
              .withGeneration(generation)
              .withResourceSliceCount((long) chunks.size())
              .endPool()
              .withDevices(chunks.get(i))
              .endSpec()
              .build());
    }
    return out;
  }

  /** The SHA-256 of {@code devices} as JSON, in hex. */
  static String digest(List<Device> devices) {
    var json = SERIALIZATION.asJson(devices);
    try {
      var sha = java.security.MessageDigest.getInstance("SHA-256");
      return java.util.HexFormat.of()
          .formatHex(sha.digest(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The name of the node's {@code i}-th slice. */
  public static String sliceName(String driver, String node, int i) {
    return node + "-" + driver + "-" + i;
  }

  private static Device gpu(DiscoveredGpu gpu, ControlNodeStatus controlNodes, boolean ready) {
    var attributes = new LinkedHashMap<String, DeviceAttribute>();
    attributes.put(KubeNames.TYPE, string(DiscoveredGpu.CLASS));
    attributes.put(KubeNames.UUID, string(gpu.uuid()));
    attributes.put(KubeNames.MODEL, string(clip(gpu.model())));
    attributes.put(
        KubeNames.INDEX, new DeviceAttributeBuilder().withInt((long) gpu.index()).build());
    attributes.put(
        KubeNames.MINOR, new DeviceAttributeBuilder().withInt((long) gpu.minor()).build());
    if (!gpu.pciBusId().isEmpty()) {
      attributes.put(
          KubeNames.PCI_BUS_ID, string(gpu.pciBusId().toLowerCase(java.util.Locale.ROOT)));
    }
    attributes.put(
        KubeNames.CONTROL_NODES_READY, new DeviceAttributeBuilder().withBool(ready).build());
    if (!ready) {
      attributes.put(KubeNames.CONTROL_NODES_PROBLEM, string(clip(controlNodes.message())));
    }
    var device = new DeviceBuilder().withName(gpu.name()).withAttributes(attributes);
    gpu.memoryBytes()
        .ifPresent(
            bytes ->
                device.withCapacity(
                    Map.of(
                        KubeNames.MEMORY,
                        new DeviceCapacityBuilder()
                            .withValue(new Quantity(Long.toString(bytes)))
                            .build())));
    if (!ready) {
      device.withTaints(
          new DeviceTaintBuilder()
              .withKey(KubeNames.CONTROL_NODES_TAINT)
              .withValue(controlNodes.reason())
              .withEffect("NoSchedule")
              .build());
    }
    return device.build();
  }

  private static Device channel(DiscoveredChannel channel) {
    var attributes = new LinkedHashMap<String, DeviceAttribute>();
    attributes.put(KubeNames.TYPE, string(DiscoveredChannel.CLASS));
    attributes.put(
        KubeNames.CHANNEL_ID, new DeviceAttributeBuilder().withInt((long) channel.id()).build());
    return new DeviceBuilder().withName(channel.name()).withAttributes(attributes).build();
  }

  private static DeviceAttribute string(String value) {
    return new DeviceAttributeBuilder().withString(value).build();
  }

  /** The API allows string attributes of at most 64 characters. */
  private static String clip(String value) {
    return value.length() <= KubeNames.MAX_STRING
        ? value
        : value.substring(0, KubeNames.MAX_STRING - 3) + "...";
  }
}
