package dev.quartermaster.control.allocator;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.gang.GangTopology;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether a gang could ever be placed on this fleet: judged by {@link GangFit}, the placement
 * itself, over every node the allocator knows (ready or not, cordoned or not: each may come back)
 * with every device free and healthy, so what is in use, broken or being committed to does not
 * count. A gang that does not fit even so waits for the fleet to change (nodes that join or leave,
 * labels, slices, classes), not for devices to be freed, and is told so, with the constraint and
 * what the largest candidate offers. Pure; {@code fleet} may hold nodes already {@link #emptied}.
 */
final class FleetCapacity {
  private FleetCapacity() {}

  /**
   * Why {@code members} can never be placed together on {@code fleet} under {@code topology}, or
   * empty when some fleet state would hold them. {@code classes} holds every class the needs name.
   */
  static Optional<String> neverFits(
      List<NodeView> fleet,
      List<GangFit.Member> members,
      Map<String, DeviceClass> classes,
      GangTopology topology) {
    var empty =
        fleet.stream().map(n -> n.schedulable() && n.held().isEmpty() ? n : emptied(n)).toList();
    if (!(GangFit.fit(empty, members, classes, topology, FitPolicy.BEST_FIT)
        instanceof GangFit.Outcome.Short s)) {
      return Optional.empty();
    }
    var base = GangFit.baseClass(members, classes).orElse("");
    var key = topology.required();
    if (key.isEmpty()) {
      return Optional.of(
          "the whole fleet ("
              + size(empty, base)
              + ") holds at most "
              + s.most()
              + " of its "
              + members.size()
              + " members even with every device free");
    }
    var domains = new TreeMap<String, List<NodeView>>();
    for (var n : empty) {
      var value = n.labels().get(key.get());
      if (value != null) {
        domains.computeIfAbsent(value, v -> new java.util.ArrayList<>()).add(n);
      }
    }
    if (domains.isEmpty()) {
      return Optional.of("no node carries the label " + key.get());
    }
    // The value that holds the most members (GangFit's), else the one with the most devices.
    var where =
        s.where()
            .filter(domains::containsKey)
            .orElseGet(
                () ->
                    domains.entrySet().stream()
                        .max(
                            java.util.Comparator.comparingInt(
                                (Map.Entry<String, List<NodeView>> e) ->
                                    e.getValue().stream().mapToInt(n -> n.free(base)).sum()))
                        .orElseThrow()
                        .getKey());
    return Optional.of(
        "no "
            + key.get()
            + " holds them all: the largest, "
            + where
            + " ("
            + size(domains.get(where), base)
            + "), holds at most "
            + s.most()
            + " of its "
            + members.size()
            + " members even with every device free");
  }

  /** {@code 2 nodes, 8 gpu}. */
  private static String size(List<NodeView> nodes, String base) {
    int devices = nodes.stream().mapToInt(n -> n.free(base)).sum();
    return nodes.size() + " node" + (nodes.size() == 1 ? "" : "s") + ", " + devices + " " + base;
  }

  /** {@code n} as if it were ready, every device healthy and nothing held. */
  static NodeView emptied(NodeView n) {
    var healthy =
        n.devices().stream()
            .map(
                d ->
                    new Device(
                        d.name(), d.deviceClass(), d.attributes(), Device.Health.Healthy, ""))
            .toList();
    return new NodeView(
        n.name(), Optional.empty(), healthy, Map.of(), n.sources(), n.labels(), n.use());
  }
}
