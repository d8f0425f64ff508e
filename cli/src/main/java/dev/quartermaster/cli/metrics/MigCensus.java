package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.claim.AllocatedDevices;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.NodeMigGpus;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The MIG GPUs counted for the scrape, each read as {@code describe node} reads it ({@link
 * NodeMigGpus}): per profile the slices held and those a claim could still get, per GPU the free
 * compute slices and whether freed slices left it fragmented. A device is held while a claim is
 * allocated it, as {@code qm_devices} counts.
 */
public record MigCensus(
    Map<MigSliceGroup, Long> slices,
    Map<MigGpuKey, Long> freeCompute,
    Map<MigGpuKey, Long> fragmented) {

  public MigCensus {
    slices = Map.copyOf(slices);
    freeCompute = Map.copyOf(freeCompute);
    fragmented = Map.copyOf(fragmented);
  }

  public static MigCensus of(
      Collection<Node> nodes, Collection<DeviceSlice> slices, Collection<ResourceClaim> claims) {
    var specs = new HashMap<String, NodeSpec>();
    nodes.forEach(n -> specs.put(n.metadata().name(), n.spec()));
    var bySlice = new HashMap<String, DeviceSliceSpec>();
    slices.forEach(s -> bySlice.put(s.spec().node(), s.spec()));
    var holders = new HashMap<String, Map<String, String>>();
    AllocatedDevices.byNode(claims)
        .forEach(
            (node, devices) -> {
              var named = new HashMap<String, String>();
              devices.forEach((d, claim) -> named.put(d, "claim/" + claim));
              holders.put(node, named);
            });
    var slicesOut = new HashMap<MigSliceGroup, Long>();
    var freeOut = new HashMap<MigGpuKey, Long>();
    var fragmentedOut = new HashMap<MigGpuKey, Long>();
    var names = new java.util.TreeSet<>(specs.keySet());
    names.addAll(bySlice.keySet());
    for (var node : names) {
      var mig =
          NodeMigGpus.of(
              specs.getOrDefault(node, NodeSpec.EMPTY),
              bySlice.getOrDefault(node, DeviceSliceSpec.EMPTY),
              holders.getOrDefault(node, Map.of()));
      for (var gpu : mig.gpus()) {
        if (gpu.occupancy().isEmpty()) {
          continue;
        }
        var key = new MigGpuKey(node, gpu.gpu());
        freeOut.put(key, (long) gpu.freeCompute());
        fragmentedOut.put(key, gpu.fragmentation().isPresent() ? 1L : 0L);
        gpu.slices()
            .forEach(
                (profile, n) -> {
                  slicesOut.put(new MigSliceGroup(node, gpu.gpu(), profile, true), (long) n.held());
                  slicesOut.put(
                      new MigSliceGroup(node, gpu.gpu(), profile, false), (long) n.free());
                });
      }
    }
    return new MigCensus(slicesOut, freeOut, fragmentedOut);
  }
}
