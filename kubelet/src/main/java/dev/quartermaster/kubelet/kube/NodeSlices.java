package dev.quartermaster.kubelet.kube;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.api.device.mps.MpsCapacity;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.use.Parts;
import dev.quartermaster.kubelet.prepare.NodeDevices;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a node publishes, computed from one look at it (no I/O): what it offers ({@link
 * dev.quartermaster.agent.devices.NodeOffer}) as {@code resource.k8s.io/v1} devices and counter
 * sets, all in the pool named after the node, as the pool {@link
 * dev.quartermaster.kubelet.prepare.DraPreparer} checks at prepare.
 *
 * <p>A whole GPU carries {@code type}, {@code uuid}, {@code model}, {@code index}, {@code minor},
 * the standard {@code resource.kubernetes.io/pciBusID}, {@code controlNodesReady} and its memory as
 * capacity; a channel {@code type} and {@code id}. While a control node is missing, every GPU and
 * every part of one is published not ready and tainted (the package doc argues why both).
 *
 * <p><b>Shared GPUs</b> (KEP-4815, KEP-5075, beta and on by default in v1.36). A GPU in MIG mode
 * publishes its counter set ({@code compute} and one counter per memory-slice position) and one
 * device of type {@code mig} per possible instance, consuming what the instance takes: two
 * instances that overlap consume the same position, so the scheduler never allocates both — the
 * rule the ledger judges by too. An MPS GPU publishes one device of type {@code mps} that may be
 * allocated many times ({@code allowMultipleAllocations}), with capacities {@code compute} (100,
 * requested in steps of {@value MpsShares#COMPUTE_STEP}), {@code memory} (whole GiB) and {@code
 * clients} (each allocation consumes one). A time-sliced GPU publishes its replicas, type {@code
 * timeslice}. A part carries its GPU's identity ({@code uuid}, {@code index}, {@code parent}).
 *
 * <p><b>The API's limits.</b> Counter sets go in slices of their own, at most {@value
 * KubeNames#MAX_COUNTER_SETS_PER_SLICE} per slice; devices in slices of at most {@value
 * KubeNames#MAX_DEVICES_PER_SLICE}, or {@value KubeNames#MAX_DEVICES_PER_SLICE_ADVANCED} where any
 * is tainted or consumes counters. A set or consumption of more than {@value
 * KubeNames#MAX_COUNTERS} counters, or a device of more than {@value
 * KubeNames#MAX_ATTRIBUTES_AND_CAPACITIES} attributes and capacities, cannot be published: {@link
 * #publication} throws rather than have the API server refuse the whole pool.
 */
public final class NodeSlices {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private NodeSlices() {}

  /** What a node's slices say: its devices and the counter sets they consume from. */
  public record Publication(List<Device> devices, List<CounterSet> counterSets) {
    public Publication {
      devices = List.copyOf(devices);
      counterSets = List.copyOf(counterSets);
    }
  }

  /** The devices the node offers now, in its offer's order (GPUs and their parts, channels). */
  public static List<Device> devices(NodeDevices look) {
    return publication(look).devices();
  }

  /** What the node offers now: its devices and its MIG GPUs' counter sets. */
  public static Publication publication(NodeDevices look) {
    var ready = look.controlNodes().ready();
    var gpus = new java.util.HashMap<String, DiscoveredGpu>();
    look.inventory().gpus().forEach(g -> gpus.put(g.name(), g));
    var channels = new java.util.HashMap<String, DiscoveredChannel>();
    look.inventory().channels().channels().forEach(c -> channels.put(c.name(), c));
    var out = new ArrayList<Device>();
    for (var offered : look.offered().devices()) {
      var whole = gpus.get(offered.name());
      var channel = channels.get(offered.name());
      var parent = gpus.get(offered.attributes().getOrDefault(Parts.PARENT, ""));
      Device device;
      if (whole != null) {
        device = gpu(whole, look.controlNodes(), ready);
      } else if (channel != null) {
        device = channel(channel);
      } else if (parent != null) {
        device = part(offered, parent, look.controlNodes(), ready);
      } else {
        continue; // a part of no GPU discovery found: nothing a container could be given
      }
      check(device);
      out.add(device);
    }
    var sets = new ArrayList<CounterSet>();
    for (var set : look.offered().counters()) {
      if (set.counters().size() > KubeNames.MAX_COUNTERS) {
        throw new IllegalStateException(
            "counter set " + set.name() + " has more than " + KubeNames.MAX_COUNTERS + " counters");
      }
      sets.add(
          new CounterSetBuilder()
              .withName(set.name())
              .withCounters(counters(set.counters()))
              .build());
    }
    return new Publication(out, sets);
  }

  /**
   * The slices that publish {@code publication} at {@code generation}: {@code <node>-<driver>-<i>},
   * counter sets first, each naming the pool's slice count, so the scheduler knows when it has seen
   * the whole pool. Nothing to publish still gives one (empty) slice: the pool exists and is known
   * to be empty.
   */
  public static List<ResourceSlice> slices(
      String driver, String node, long generation, Publication publication) {
    var chunks = new ArrayList<Publication>();
    var sets = publication.counterSets();
    for (int i = 0; i < sets.size(); i += KubeNames.MAX_COUNTER_SETS_PER_SLICE) {
      chunks.add(
          new Publication(
              List.of(),
              sets.subList(i, Math.min(sets.size(), i + KubeNames.MAX_COUNTER_SETS_PER_SLICE))));
    }
    var devices = publication.devices();
    boolean advanced =
        devices.stream()
            .anyMatch(
                d ->
                    (d.getTaints() != null && !d.getTaints().isEmpty())
                        || (d.getConsumesCounters() != null && !d.getConsumesCounters().isEmpty()));
    int most =
        advanced ? KubeNames.MAX_DEVICES_PER_SLICE_ADVANCED : KubeNames.MAX_DEVICES_PER_SLICE;
    for (int i = 0; i < devices.size(); i += most) {
      chunks.add(
          new Publication(devices.subList(i, Math.min(devices.size(), i + most)), List.of()));
    }
    if (chunks.isEmpty()) {
      chunks.add(new Publication(List.of(), List.of()));
    }
    var out = new ArrayList<ResourceSlice>();
    for (int i = 0; i < chunks.size(); i++) {
      var chunk = chunks.get(i);
      var spec =
          new ResourceSliceBuilder()
              .withMetadata(
                  new ObjectMetaBuilder()
                      .withName(sliceName(driver, node, i))
                      .withLabels(Map.of(KubeNames.NODE_LABEL, node))
                      .withAnnotations(Map.of(KubeNames.DEVICES_DIGEST, digest(chunk)))
                      .build())
              .withNewSpec()
              .withDriver(driver)
              .withNodeName(node)
              .withNewPool()
              .withName(node)
              .withGeneration(generation)
              .withResourceSliceCount((long) chunks.size())
              .endPool();
      // One of the two, never both: the API refuses a slice with counter sets and devices.
      if (chunk.counterSets().isEmpty()) {
        spec.withDevices(chunk.devices());
      } else {
        spec.withSharedCounters(chunk.counterSets());
      }
      out.add(spec.endSpec().build());
    }
    return out;
  }

  /** The SHA-256 of what {@code chunk} publishes, as JSON, in hex. */
  static String digest(Publication chunk) {
    return chunk.counterSets().isEmpty()
        ? digest(chunk.devices())
        : digest(List.of(chunk.devices(), chunk.counterSets()));
  }

  /** The SHA-256 of {@code value} as JSON, in hex. */
  static String digest(Object value) {
    var json = SERIALIZATION.asJson(value);
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
    identity(attributes, gpu, controlNodes, ready);
    var device = new DeviceBuilder().withName(gpu.name()).withAttributes(attributes);
    gpu.memoryBytes()
        .ifPresent(bytes -> device.withCapacity(Map.of(KubeNames.MEMORY, capacity(bytes).build())));
    return tainted(device, controlNodes, ready).build();
  }

  /**
   * A part of GPU {@code parent} (a MIG slice, the MPS device, a time-sliced replica): its type is
   * its class; it carries its GPU's identity and its own attributes, numbers as ints.
   */
  private static Device part(
      dev.quartermaster.api.device.Device offered,
      DiscoveredGpu parent,
      ControlNodeStatus controlNodes,
      boolean ready) {
    var attributes = new LinkedHashMap<String, DeviceAttribute>();
    attributes.put(KubeNames.TYPE, string(offered.deviceClass()));
    identity(attributes, parent, controlNodes, ready);
    var capacities = new LinkedHashMap<String, DeviceCapacity>();
    var device = new DeviceBuilder().withName(offered.name());
    if (MpsShares.isTemplate(offered)) {
      var mps = MpsShares.capacity(offered);
      device.withAllowMultipleAllocations(true);
      capacities.put(
          KubeNames.COMPUTE,
          capacity(mps.computePercent())
              .withNewRequestPolicy()
              .withDefault(quantity(mps.computePercent()))
              .withNewValidRange()
              .withMin(quantity(MpsShares.COMPUTE_STEP))
              .withMax(quantity(mps.computePercent()))
              .withStep(quantity(MpsShares.COMPUTE_STEP))
              .endValidRange()
              .endRequestPolicy()
              .build());
      if (mps.memoryGiB() >= 2 && mps.memoryGiB() < MpsCapacity.UNKNOWN.memoryGiB()) {
        long all = mps.memoryGiB() * MpsShares.GIB;
        capacities.put(
            KubeNames.MEMORY,
            capacity(all)
                .withNewRequestPolicy()
                .withDefault(quantity(all))
                .withNewValidRange()
                .withMin(quantity(MpsShares.GIB))
                .withMax(quantity(all))
                .withStep(quantity(MpsShares.GIB))
                .endValidRange()
                .endRequestPolicy()
                .build());
      }
      capacities.put(
          KubeNames.CLIENTS,
          capacity(mps.clients())
              .withNewRequestPolicy()
              .withDefault(quantity(1))
              .withValidValues(quantity(1))
              .endRequestPolicy()
              .build());
    } else {
      var memory = offered.attributes().get(KubeNames.MEMORY);
      if (memory != null && memory.matches("[0-9]{1,18}")) {
        capacities.put(KubeNames.MEMORY, capacity(Long.parseLong(memory)).build());
      } else {
        parent
            .memoryBytes()
            .ifPresent(bytes -> capacities.put(KubeNames.MEMORY, capacity(bytes).build()));
      }
    }
    new java.util.TreeMap<>(offered.attributes())
        .forEach(
            (name, value) -> {
              if (!capacities.containsKey(name)
                  && !name.equals(KubeNames.MEMORY)
                  && !attributes.containsKey(name)
                  && name.matches("[A-Za-z][A-Za-z0-9_]{0,31}")) {
                attributes.put(
                    name,
                    value.matches("-?[0-9]{1,18}")
                        ? new DeviceAttributeBuilder().withInt(Long.parseLong(value)).build()
                        : string(clip(value)));
              }
            });
    device.withAttributes(attributes).withCapacity(capacities);
    if (!offered.consumesCounters().isEmpty()) {
      device.withConsumesCounters(
          offered.consumesCounters().stream()
              .map(
                  c ->
                      new DeviceCounterConsumptionBuilder()
                          .withCounterSet(c.counterSet())
                          .withCounters(counters(c.counters()))
                          .build())
              .toList());
    }
    return tainted(device, controlNodes, ready).build();
  }

  /** What a GPU and each part of it say of the GPU. */
  private static void identity(
      Map<String, DeviceAttribute> attributes,
      DiscoveredGpu gpu,
      ControlNodeStatus controlNodes,
      boolean ready) {
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
  }

  private static DeviceBuilder tainted(
      DeviceBuilder device, ControlNodeStatus controlNodes, boolean ready) {
    if (!ready) {
      device.withTaints(
          new DeviceTaintBuilder()
              .withKey(KubeNames.CONTROL_NODES_TAINT)
              .withValue(controlNodes.reason())
              .withEffect("NoSchedule")
              .build());
    }
    return device;
  }

  /** Refuses a device the API server would refuse, naming the limit. */
  private static void check(Device device) {
    int named =
        (device.getAttributes() == null ? 0 : device.getAttributes().size())
            + (device.getCapacity() == null ? 0 : device.getCapacity().size());
    if (named > KubeNames.MAX_ATTRIBUTES_AND_CAPACITIES) {
      throw new IllegalStateException(
          "device "
              + device.getName()
              + " has "
              + named
              + " attributes and capacities; the API allows "
              + KubeNames.MAX_ATTRIBUTES_AND_CAPACITIES);
    }
    var consumes =
        device.getConsumesCounters() == null
            ? List.<DeviceCounterConsumption>of()
            : device.getConsumesCounters();
    if (consumes.size() > KubeNames.MAX_CONSUMPTIONS_PER_DEVICE
        || consumes.stream().anyMatch(c -> c.getCounters().size() > KubeNames.MAX_COUNTERS)) {
      throw new IllegalStateException(
          "device "
              + device.getName()
              + " consumes from more than "
              + KubeNames.MAX_CONSUMPTIONS_PER_DEVICE
              + " counter sets or more than "
              + KubeNames.MAX_COUNTERS
              + " counters of one");
    }
  }

  private static Map<String, Counter> counters(Map<String, Long> amounts) {
    var out = new LinkedHashMap<String, Counter>();
    amounts.forEach(
        (name, amount) -> out.put(name, new CounterBuilder().withValue(quantity(amount)).build()));
    return out;
  }

  private static DeviceCapacityBuilder capacity(long value) {
    return new DeviceCapacityBuilder().withValue(quantity(value));
  }

  private static Quantity quantity(long value) {
    return new Quantity(Long.toString(value));
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
