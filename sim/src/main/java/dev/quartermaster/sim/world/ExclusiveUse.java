package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Holding;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * I1 over the store's claims, the one judge of it in the simulation and the tests: on no node do
 * the devices live claims are allocated over-consume a counter ({@link DeviceUse#overConsumed}) —
 * for devices that declare no shared counters, no device is allocated to two claims — and no part
 * of a GPU (a MIG slice, a time-sliced replica) is allocated beside the whole GPU to another claim
 * ({@link DeviceUse#partWithWhole}).
 */
public final class ExclusiveUse {
  private ExclusiveUse() {}

  /** Each node's use as its slices publish it (a node with none: whole devices). */
  public static Function<String, DeviceUse> bySlices(Collection<DeviceSlice> slices) {
    var byNode = new TreeMap<String, List<DeviceSliceSpec>>();
    slices.forEach(
        s -> byNode.computeIfAbsent(s.spec().node(), n -> new ArrayList<>()).add(s.spec()));
    var uses = new TreeMap<String, DeviceUse>();
    byNode.forEach((n, specs) -> uses.put(n, DeviceUse.of(specs)));
    return n -> uses.getOrDefault(n, DeviceUse.WHOLE_DEVICES);
  }

  /**
   * One line per node whose counters {@code claims}' allocations over-consume, e.g. {@code
   * node-1/gpu-0 allocated to claims a and b}.
   */
  public static List<String> violations(
      Collection<ResourceClaim> claims, Function<String, DeviceUse> useOf) {
    var byNode = new TreeMap<String, List<Holding<String>>>();
    for (var c : claims) {
      c.status()
          .allocation()
          .ifPresent(
              a ->
                  a.devices()
                      .forEach(
                          d ->
                              byNode
                                  .computeIfAbsent(a.node(), n -> new ArrayList<>())
                                  .add(new Holding<>(d.device(), c.metadata().name()))));
    }
    var out = new ArrayList<String>();
    for (Map.Entry<String, List<Holding<String>>> e : byNode.entrySet()) {
      var node = e.getKey();
      var use = useOf.apply(node);
      var byDevice = new TreeMap<String, String>();
      e.getValue().forEach(h -> byDevice.putIfAbsent(h.device(), h.holder()));
      use.overConsumed(e.getValue())
          .or(() -> use.partWithWhole(byDevice))
          .ifPresent(
              clash ->
                  out.add(
                      !clash.heldDevice().equals(clash.device()) && clash.over().isEmpty()
                          ? node
                              + ": "
                              + clash.describe()
                              + ", and device "
                              + clash.device()
                              + " by "
                              + clash.holder()
                          : clash.over().isEmpty()
                              ? node
                                  + "/"
                                  + clash.device()
                                  + " allocated to claims "
                                  + clash.heldBy()
                                  + " and "
                                  + clash.holder()
                              : node
                                  + ": "
                                  + clash.describe()
                                  + ", and device "
                                  + clash.device()
                                  + " by "
                                  + clash.holder()));
    }
    return out;
  }
}
