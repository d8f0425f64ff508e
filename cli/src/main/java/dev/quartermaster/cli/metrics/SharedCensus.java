package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.claim.AllocatedDevices;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.timeslice.TimeSlicedGpu;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.node.Node;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The time-sliced GPUs counted for the scrape, each read as {@code describe node} reads it ({@link
 * TimeSlicedGpu}): per GPU its replicas held and free. A device is held while a claim is allocated
 * it, as {@code qm_devices} counts.
 */
final class SharedCensus {
  private SharedCensus() {}

  static Map<ReplicaGroup, Long> of(
      Collection<Node> nodes, Collection<DeviceSlice> slices, Collection<ResourceClaim> claims) {
    var out = new HashMap<ReplicaGroup, Long>();
    var bySlice = new HashMap<String, DeviceSliceSpec>();
    slices.forEach(s -> bySlice.put(s.spec().node(), s.spec()));
    var byNode = AllocatedDevices.byNode(claims);
    for (var n : nodes) {
      var name = n.metadata().name();
      var slice = bySlice.getOrDefault(name, DeviceSliceSpec.EMPTY);
      if (n.spec().sharing().isEmpty()
          && slice.devices().stream()
              .noneMatch(d -> d.deviceClass().equals(TimeSlices.DEVICE_CLASS))) {
        continue; // most nodes: nothing shared, nothing counted
      }
      var holders = new HashMap<String, String>();
      byNode.getOrDefault(name, Map.of()).forEach((d, claim) -> holders.put(d, "claim/" + claim));
      for (var gpu : TimeSlicedGpu.of(n.spec(), slice, holders)) {
        long held = gpu.clients();
        out.put(new ReplicaGroup(name, gpu.gpu(), "held"), held);
        out.put(new ReplicaGroup(name, gpu.gpu(), "free"), gpu.holders().size() - held);
      }
    }
    return out;
  }
}
