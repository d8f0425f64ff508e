package dev.quartermaster.control.allocator;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigHoldings;
import dev.quartermaster.api.device.use.Holders;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Why no node takes a set of needs, in words a person can act on: never (no node could hold them
 * even empty and healthy) or not now (and each node's reason: "node-2 is not DevicesReady: missing
 * /dev/nvidia-uvm"). The slow path of a placement, so the only one that looks at every node.
 */
final class Shortfall {
  private static final int MAX_NODES_EXPLAINED = 5;

  private Shortfall() {}

  /**
   * {@link Placement.Unsatisfiable} or {@link Placement.Waiting} for {@code needs} over {@code
   * scope} (every indexed node, or the one {@code pinned} to, if indexed); {@code classes} holds
   * every class the needs name.
   */
  static Placement of(
      List<NodeView> scope,
      List<ClaimNeed> needs,
      Optional<String> pinned,
      Map<String, DeviceClass> classes) {
    var what = describe(needs, classes);
    if (scope.isEmpty()) {
      return new Placement.Waiting(
          pinned
                  .map(p -> "node " + p + " has published no devices")
                  .orElse("no node has published devices yet")
              + "; need "
              + what);
    }
    // Could any node hold it at all, were every device healthy and free?
    boolean everFits =
        scope.stream()
            .anyMatch(
                v ->
                    DeviceFit.fit(
                            v.devices(),
                            needs,
                            classes,
                            (d, taking) ->
                                v.use()
                                    .isFree(d.name(), Holders.all(taking, HeadReservation.HOLDER)))
                        .isPresent());
    if (!everFits) {
      int most = scope.stream().mapToInt(v -> matching(v, needs, classes)).max().orElse(0);
      int together = scope.stream().mapToInt(v -> slicesAtOnce(v, needs, classes)).max().orElse(0);
      return new Placement.Unsatisfiable(
          "need "
              + what
              + ", but "
              + pinned.map(p -> "node " + p + " has").orElse("the largest node has")
              + " only "
              + most
              + " matching device(s)"
              + (asksForSlices(needs, classes)
                  ? ", MIG slices of which at most "
                      + together
                      + " can be held at once (they share their GPUs' compute and memory slices)"
                  : ""));
    }
    return new Placement.Waiting(
        "no node can take " + what + " now: " + perNode(scope, needs, classes));
  }

  private static String perNode(
      List<NodeView> scope, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    var sorted = scope.stream().sorted(Comparator.comparing(NodeView::name)).toList();
    var parts = new ArrayList<String>();
    for (var v : sorted.subList(0, Math.min(MAX_NODES_EXPLAINED, sorted.size()))) {
      parts.add(
          v.notReady()
              .orElseGet(
                  () ->
                      "node "
                          + v.name()
                          + " has "
                          + freeMatching(v, needs, classes)
                          + " free healthy matching device(s)"
                          + (asksForSlices(needs, classes) ? migGpus(v) : "")));
    }
    if (sorted.size() > MAX_NODES_EXPLAINED) {
      parts.add("and " + (sorted.size() - MAX_NODES_EXPLAINED) + " more node(s)");
    }
    return String.join("; ", parts);
  }

  private static boolean asksForSlices(List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    return needs.stream()
        .flatMap(n -> n.requests().stream())
        .anyMatch(
            r ->
                classes
                    .get(r.deviceClassName())
                    .spec()
                    .deviceClass()
                    .equals(MigGeometry.DEVICE_CLASS));
  }

  /** Each MIG GPU of {@code v} as its positions stand: ", its MIG GPUs: gpu-0 [3g.71gb: held]…". */
  private static String migGpus(NodeView v) {
    var gpus =
        MigHoldings.of(v.devices(), d -> Optional.ofNullable(v.held().get(d)).map(u -> HELD));
    if (gpus.isEmpty()) {
      return "";
    }
    var parts = new ArrayList<String>();
    gpus.forEach(g -> parts.add(g.gpu() + " " + g.render()));
    return " (" + String.join(", ", parts) + ")";
  }

  private static final String HELD = "held";

  /**
   * How many slices the requests for class {@code mig} could hold at once on {@code v} were it
   * empty, each taken as the placement would take it.
   */
  private static int slicesAtOnce(
      NodeView v, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    var taking = new java.util.HashSet<String>();
    var requests = needs.stream().flatMap(n -> n.requests().stream()).toList();
    while (true) {
      var next =
          SliceChoice.next(
              v.devices(),
              d ->
                  requests.stream()
                          .anyMatch(
                              r ->
                                  DeviceFit.matches(d, classes.get(r.deviceClassName()))
                                      && d.deviceClass().equals(MigGeometry.DEVICE_CLASS)
                                      && r.selectors().stream()
                                          .allMatch(sel -> sel.matches(d.attributes())))
                      && v.use().isFree(d.name(), Holders.all(taking, HeadReservation.HOLDER)),
              taking::contains);
      if (next.isEmpty()) {
        return taking.size();
      }
      taking.add(next.get().name());
    }
  }

  private static long freeMatching(
      NodeView v, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    return v.devices().stream()
        .filter(v::isFree)
        .filter(
            d ->
                needs.stream()
                    .flatMap(n -> n.requests().stream())
                    .anyMatch(
                        r ->
                            DeviceFit.matches(d, classes.get(r.deviceClassName()))
                                && r.selectors().stream()
                                    .allMatch(sel -> sel.matches(d.attributes()))))
        .count();
  }

  private static int matching(NodeView v, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    return (int)
        v.devices().stream()
            .filter(
                d ->
                    needs.stream()
                        .flatMap(n -> n.requests().stream())
                        .anyMatch(
                            r ->
                                DeviceFit.matches(d, classes.get(r.deviceClassName()))
                                    && r.selectors().stream()
                                        .allMatch(s -> s.matches(d.attributes()))))
            .count();
  }

  private static String describe(List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    var parts = new ArrayList<String>();
    for (var n : needs) {
      for (var r : n.requests()) {
        parts.add(
            r.count()
                + " x "
                + r.deviceClassName()
                + " (class "
                + classes.get(r.deviceClassName()).spec().deviceClass()
                + ") for claim "
                + n.claim());
      }
    }
    return String.join(", ", parts);
  }
}
