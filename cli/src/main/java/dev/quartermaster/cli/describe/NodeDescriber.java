package dev.quartermaster.cli.describe;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigGpu;
import dev.quartermaster.api.device.mig.NodeMigGpus;
import dev.quartermaster.api.device.mps.MpsGpu;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlicedGpu;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.format.Bytes;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.table.Table;
import dev.quartermaster.cli.format.Times;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A node: its state, its conditions, and each of its devices with its health and the claim holding
 * it; free IMEX channels are counted by health (a node has 2,048), all listed with {@code
 * --channels}; each MIG GPU drawn as its positions and what holds each, free slices not listed.
 */
final class NodeDescriber implements Describer<Node> {

  @Override
  public void describe(Node node, DescribeContext context, Description out) {
    var name = node.metadata().name();
    out.section(
        "Spec",
        d ->
            d.field("Unschedulable", Boolean.toString(node.spec().unschedulable()))
                .field("Fenced", Boolean.toString(node.spec().fenced()))
                .field(
                    "MIG",
                    node.spec().mig().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(java.util.stream.Collectors.joining(", ")))
                .field(
                    "Sharing",
                    node.spec().sharing().entrySet().stream()
                        .map(
                            e ->
                                e.getKey()
                                    + "="
                                    + e.getValue().mode()
                                    + "×"
                                    + e.getValue().replicas())
                        .collect(java.util.stream.Collectors.joining(", "))));
    var s = node.status();
    out.section(
        "Status",
        d ->
            d.field("Heartbeat", Times.at(s.heartbeat(), context.now()))
                .field("Boot ID", s.bootId())
                .field("Agent Version", s.agentVersion())
                .field("Compute Domains", String.join(", ", s.computeDomains())));
    ConditionsSection.write(s.conditions(), context.now(), out);

    var holders = holdersOn(name, context);
    var rows = new ArrayList<List<String>>();
    var freeChannels = new java.util.TreeMap<String, Integer>(); // by health
    var mig = NodeMigGpus.NONE;
    var shared = List.<TimeSlicedGpu>of();
    var nodeSlice = DeviceSliceSpec.EMPTY;
    for (var slice : context.api().list(Kinds.DEVICE_SLICE).items()) {
      if (!slice.spec().node().equals(name)) {
        continue;
      }
      nodeSlice = slice.spec();
      mig = NodeMigGpus.of(node.spec(), slice.spec(), holders);
      shared = TimeSlicedGpu.of(node.spec(), slice.spec(), holders);
      for (var device : slice.spec().devices()) {
        var holder = holders.getOrDefault(device.name(), Table.NONE);
        // A free MIG slice is drawn in its GPU's positions below, not listed among 21 possible.
        // So is a free replica of a time-sliced GPU, in its GPU's replicas below.
        if ((device.deviceClass().equals(MigGeometry.DEVICE_CLASS)
                || device.deviceClass().equals(TimeSlices.DEVICE_CLASS))
            && holder.equals(Table.NONE)) {
          continue;
        }
        // A node has thousands of IMEX channels: counted, with the held ones listed, unless asked
        // for all.
        if (device.deviceClass().equals(ComputeDomainSpec.CHANNEL_DEVICE_CLASS)
            && !context.everyChannel()
            && holder.equals(Table.NONE)) {
          freeChannels.merge(health(device), 1, Integer::sum);
          continue;
        }
        rows.add(
            List.of(
                device.name(),
                device.deviceClass(),
                attribute(device, "model"),
                memory(device),
                health(device),
                holder));
      }
    }
    out.table(
        "Devices",
        new Table(List.of("DEVICE", "CLASS", "MODEL", "MEMORY", "HEALTH", "HELD BY"), rows));
    if (mig.isEmpty()) {
      mig = NodeMigGpus.of(node.spec(), DeviceSliceSpec.EMPTY, holders);
    }
    if (!mig.isEmpty()) {
      var gpus = mig.gpus();
      out.section("MIG GPUs", d -> gpus.forEach(g -> d.section(g.gpu(), e -> migGpu(g, e))));
    }
    if (shared.isEmpty()) {
      shared = TimeSlicedGpu.of(node.spec(), DeviceSliceSpec.EMPTY, holders);
    }
    if (!shared.isEmpty()) {
      var gpus = shared;
      out.section(
          "Shared GPUs",
          d ->
              gpus.forEach(
                  g ->
                      d.section(
                          g.gpu(),
                          e -> {
                            e.field("Mode", g.modeText());
                            if (!g.holders().isEmpty()) {
                              e.field("Clients", g.clients() + "/" + g.holders().size())
                                  .field("Replicas", g.render());
                            }
                            e.field("Isolation", TimeSlices.NO_ISOLATION);
                          })));
    }
    var mps = MpsGpu.of(node.spec(), nodeSlice, holders);
    if (!mps.isEmpty()) {
      out.section(
          "MPS GPUs",
          d ->
              mps.forEach(
                  g ->
                      d.section(
                          g.gpu(),
                          e -> {
                            e.field("Mode", g.modeText());
                            if (g.offered().isPresent()) {
                              e.field("Used", g.usedText()).field("Compute", g.render());
                            }
                            int k = 1;
                            for (var share : g.shares().entrySet()) {
                              e.field(
                                  "Share " + k++,
                                  share.getKey().name()
                                      + " ("
                                      + share.getKey().computePercent()
                                      + " %, "
                                      + share.getKey().memoryGiB()
                                      + " GiB): "
                                      + share.getValue());
                            }
                            e.field("Isolation", MpsShares.ONE_FAULT_DOMAIN);
                          })));
    }
    if (!freeChannels.isEmpty()) {
      out.section(
          "Free Channels (counted; --channels lists each)",
          d -> freeChannels.forEach((health, count) -> d.field(health, Integer.toString(count))));
    }
  }

  /** One MIG GPU: its mode, its positions and who holds each, and why larger slices do not fit. */
  private static void migGpu(MigGpu gpu, Description d) {
    d.field("Mode", gpu.modeText());
    gpu.occupancy()
        .ifPresent(
            o ->
                d.field("Model", o.geometry().model())
                    .field("Free", gpu.freeCompute() + "/" + gpu.totalCompute() + " compute slices")
                    .field("Positions", o.render()));
    gpu.fragmentation().ifPresent(f -> d.field("Fragmented", f));
    if (!gpu.problems().isEmpty()) {
      d.values("Problems", gpu.problems());
    }
  }

  /**
   * Device name → the claim(s) allocated it on this node; two names here would break invariant I1.
   * A device the node's allocation record holds for a claim not (yet) allocated it shows that claim
   * as reserved.
   */
  private static Map<String, String> holdersOn(String node, DescribeContext context) {
    var holders = new HashMap<String, String>();
    for (ResourceClaim claim : context.api().list(Kinds.RESOURCE_CLAIM).items()) {
      var allocation = claim.status().allocation().filter(a -> a.node().equals(node));
      allocation.ifPresent(
          a ->
              a.devices().stream()
                  .map(Allocation.AllocatedDevice::device)
                  .forEach(
                      device ->
                          holders.merge(
                              device, "claim/" + claim.metadata().name(), (x, y) -> x + ", " + y)));
    }
    context
        .api()
        .get(Kinds.NODE_ALLOCATION, node)
        .ifPresent(
            record ->
                record
                    .spec()
                    .devices()
                    .forEach(
                        (device, holder) ->
                            holders.putIfAbsent(
                                device, "claim/" + holder.claim() + " (reserved)")));
    return holders;
  }

  private static String attribute(Device device, String key) {
    return device.attributes().getOrDefault(key, Table.NONE);
  }

  private static String memory(Device device) {
    var bytes = device.attributes().get("memory");
    if (bytes == null) {
      return Table.NONE;
    }
    try {
      return Bytes.human(Long.parseLong(bytes));
    } catch (NumberFormatException e) {
      return bytes; // shown as the agent wrote it
    }
  }

  private static String health(Device device) {
    return device.healthReason().isEmpty()
        ? device.health().name()
        : device.health().name() + " (" + device.healthReason() + ")";
  }
}
