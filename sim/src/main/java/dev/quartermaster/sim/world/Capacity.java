package dev.quartermaster.sim.world;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.control.cluster.NodeReadiness;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The GPUs free now, as the store shows them: per node that takes allocations ({@link
 * NodeReadiness}), its healthy GPUs that no claim holds — neither in its allocation nor as a record
 * entry of a claim still pending (a reservation being finished). A record entry of a claim that is
 * gone, or placed elsewhere, is garbage the allocator must clean, so it counts as free: capacity
 * that leaks that way shows as work that waits while devices are free.
 *
 * @param free per schedulable node, how many GPUs are free
 * @param labels per schedulable node, its labels (the topology a gang may require)
 */
record Capacity(Map<String, Integer> free, Map<String, Map<String, String>> labels) {
  static final String GPU = "gpu";

  /**
   * The store's free GPUs, counting what the claims of {@code ignored} (by uid) hold as free too.
   */
  static Capacity of(StoreView view, Set<String> ignored) {
    var held = new HashMap<String, Set<String>>();
    var pending = new HashSet<String>();
    for (var c : view.claims()) {
      if (ignored.contains(c.metadata().uid())) {
        continue;
      }
      c.status()
          .allocation()
          .ifPresentOrElse(
              a ->
                  a.devices()
                      .forEach(
                          d ->
                              held.computeIfAbsent(a.node(), n -> new HashSet<>()).add(d.device())),
              () -> pending.add(c.metadata().uid()));
    }
    for (var r : view.records()) {
      r.spec()
          .devices()
          .forEach(
              (device, holder) -> {
                if (pending.contains(holder.uid())) {
                  held.computeIfAbsent(r.metadata().name(), n -> new HashSet<>()).add(device);
                }
              });
    }
    var schedulable = new TreeMap<String, Map<String, String>>();
    for (var n : view.nodes()) {
      if (NodeReadiness.isSchedulable(n)) {
        schedulable.put(n.metadata().name(), n.metadata().labels());
      }
    }
    var free = new TreeMap<String, Integer>();
    schedulable.keySet().forEach(n -> free.put(n, 0));
    for (var s : view.slices()) {
      var node = s.spec().node();
      if (!free.containsKey(node)) {
        continue;
      }
      var taken = held.getOrDefault(node, Set.of());
      for (var d : s.spec().devices()) {
        if (GPU.equals(d.deviceClass())
            && d.health() == Device.Health.Healthy
            && !taken.contains(d.name())) {
          free.merge(node, 1, Integer::sum);
        }
      }
    }
    return new Capacity(Map.copyOf(free), Map.copyOf(schedulable));
  }

  /**
   * Whether {@code members} members of {@code gpus} GPUs each (a member's GPUs on one node) fit,
   * all on nodes of one value of {@code required} when a key is required ({@code within}: that
   * value only).
   */
  boolean fits(int members, int gpus, Optional<String> required, Optional<String> within) {
    if (members <= 0) {
      return true;
    }
    var byDomain = new HashMap<String, Integer>();
    free.forEach(
        (node, n) -> {
          // Nodes without the required label are not used, as the allocator does not use them.
          var value = required.isEmpty() ? "" : labels.get(node).get(required.get());
          if (value == null || within.filter(w -> !w.equals(value)).isPresent()) {
            return;
          }
          byDomain.merge(value, gpus <= 0 ? members : n / gpus, Integer::sum);
        });
    return byDomain.values().stream().anyMatch(slots -> slots >= members);
  }

  /** {@code node: n free} for every schedulable node, for a message. */
  String describe() {
    var b = new StringBuilder();
    free.forEach((n, k) -> b.append(b.isEmpty() ? "" : ", ").append(n).append(": ").append(k));
    return b.isEmpty() ? "no schedulable node" : b + " GPU(s) free";
  }
}
