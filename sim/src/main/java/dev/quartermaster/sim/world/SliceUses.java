package dev.quartermaster.sim.world;

import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.use.DeviceUse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Each node's {@link DeviceUse} as its slices say, kept from one check to the next and built again
 * only for a node whose slices changed: the judge asks every step, a MIG node's use (a few dozen
 * slice devices and their counters) is costly to build, and slices change only when an agent
 * publishes. Same answers as {@link ExclusiveUse#bySlices}.
 */
final class SliceUses {
  private record Built(List<Long> revisions, DeviceUse use) {}

  private final Map<String, Built> byNode = new HashMap<>();

  Function<String, DeviceUse> of(Collection<DeviceSlice> slices) {
    var specs = new TreeMap<String, List<DeviceSliceSpec>>();
    var revisions = new TreeMap<String, List<Long>>();
    for (var s : slices) {
      specs.computeIfAbsent(s.spec().node(), n -> new ArrayList<>()).add(s.spec());
      revisions
          .computeIfAbsent(s.spec().node(), n -> new ArrayList<>())
          .add(s.metadata().revision());
    }
    byNode.keySet().retainAll(specs.keySet());
    specs.forEach(
        (node, list) -> {
          var built = byNode.get(node);
          if (built == null || !built.revisions().equals(revisions.get(node))) {
            byNode.put(node, new Built(revisions.get(node), DeviceUse.of(list)));
          }
        });
    var uses = new HashMap<String, DeviceUse>();
    byNode.forEach((node, built) -> uses.put(node, built.use()));
    return n -> uses.getOrDefault(n, DeviceUse.WHOLE_DEVICES);
  }
}
