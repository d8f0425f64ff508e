package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.claim.AllocatedDevices;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mps.MpsGpu;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.SharingMode;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The MPS GPUs counted for the scrape, each read as {@code describe node} reads it ({@link
 * MpsGpu}): per GPU its compute, memory and clients held and free, and per share its limits (which
 * DCGM cannot tell apart: every client of an MPS daemon is one process to it).
 */
record MpsCensus(Map<MpsGroup, Long> capacity, Map<MpsShareKey, Long> shares) {
  static MpsCensus of(
      Collection<Node> nodes, Collection<DeviceSlice> slices, Collection<ResourceClaim> claims) {
    var capacity = new HashMap<MpsGroup, Long>();
    var shares = new HashMap<MpsShareKey, Long>();
    var bySlice = new HashMap<String, DeviceSliceSpec>();
    slices.forEach(s -> bySlice.put(s.spec().node(), s.spec()));
    var byNode = AllocatedDevices.byNode(claims);
    for (var n : nodes) {
      var name = n.metadata().name();
      if (n.spec().sharing().values().stream().noneMatch(w -> w.mode() == SharingMode.Mps)
          && byNode.getOrDefault(name, Map.of()).keySet().stream()
              .noneMatch(d -> d.contains("-mps-"))) {
        continue; // most nodes: no MPS GPU, nothing counted
      }
      var holders = new HashMap<String, String>();
      byNode.getOrDefault(name, Map.of()).forEach((d, claim) -> holders.put(d, claim));
      for (var gpu :
          MpsGpu.of(n.spec(), bySlice.getOrDefault(name, DeviceSliceSpec.EMPTY), holders)) {
        gpu.offered()
            .ifPresent(
                cap -> {
                  put(
                      capacity,
                      name,
                      gpu.gpu(),
                      "compute_percent",
                      gpu.computeHeld(),
                      cap.computePercent());
                  put(
                      capacity,
                      name,
                      gpu.gpu(),
                      "memory_gib",
                      gpu.memoryGiBHeld(),
                      cap.memoryGiB());
                  put(capacity, name, gpu.gpu(), "clients", gpu.shares().size(), cap.clients());
                });
        gpu.shares()
            .forEach(
                (share, claim) -> {
                  shares.put(
                      new MpsShareKey(name, gpu.gpu(), share.name(), claim, "compute_percent"),
                      (long) share.computePercent());
                  shares.put(
                      new MpsShareKey(name, gpu.gpu(), share.name(), claim, "memory_gib"),
                      (long) share.memoryGiB());
                });
      }
    }
    return new MpsCensus(Map.copyOf(capacity), Map.copyOf(shares));
  }

  private static void put(
      Map<MpsGroup, Long> out, String node, String gpu, String resource, long held, long all) {
    out.put(new MpsGroup(node, gpu, resource, "held"), held);
    out.put(new MpsGroup(node, gpu, resource, "free"), Math.max(0, all - held));
  }
}
