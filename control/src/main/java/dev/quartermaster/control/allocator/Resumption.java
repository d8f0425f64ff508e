package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * An allocation to finish rather than start: an earlier attempt (ours or another allocator's) wrote
 * record entries for every pending claim on one ready node, and crashed, lost a race or was fenced
 * before its claim writes (see {@code package-info}). Pure, over what the index shows.
 */
final class Resumption {
  private Resumption() {}

  /**
   * The placement that finishes such an attempt: the lowest-named node (of {@code pinned}, if
   * given) where each of {@code pending}'s needs fits into the devices its uid's entries hold.
   *
   * @param entriesOf per claim uid, its record entries: node → devices
   * @param viewOf a node as indexed, if it is schedulable
   */
  static Optional<Placement.Placed> of(
      List<ResourceClaim> pending,
      Optional<String> pinned,
      Map<String, DeviceClass> classes,
      Function<String, Map<String, Set<String>>> entriesOf,
      Function<String, Optional<NodeView>> viewOf) {
    Map<String, Map<String, Set<String>>> byClaim = new HashMap<>();
    Set<String> common = null;
    for (var c : pending) {
      var r = entriesOf.apply(c.metadata().uid());
      byClaim.put(c.metadata().name(), r);
      common = common == null ? new HashSet<>(r.keySet()) : common;
      common.retainAll(r.keySet());
    }
    if (common == null || common.isEmpty()) {
      return Optional.empty();
    }
    var needs = ClaimNeed.of(pending);
    if (ClaimNeed.missingClass(needs, classes).isPresent()) {
      return Optional.empty();
    }
    for (var n : common.stream().sorted().toList()) {
      if (pinned.isPresent() && !pinned.get().equals(n)) {
        continue;
      }
      var reserved = new HashMap<String, Set<String>>();
      byClaim.forEach((claim, r) -> reserved.put(claim, r.get(n)));
      var fit = viewOf.apply(n).flatMap(v -> fitEntries(v, needs, reserved, classes));
      if (fit.isPresent()) {
        return Optional.of(new Placement.Placed(n, fit.get()));
      }
    }
    return Optional.empty();
  }

  /**
   * {@code needs} fitted into the devices of {@code view} already held for them (claim name → its
   * uid's entries there).
   */
  private static Optional<Map<String, List<AllocatedDevice>>> fitEntries(
      NodeView view,
      List<ClaimNeed> needs,
      Map<String, Set<String>> heldByClaim,
      Map<String, DeviceClass> classes) {
    var out = new HashMap<String, List<AllocatedDevice>>();
    for (var need : needs) {
      var held = heldByClaim.getOrDefault(need.claim(), Set.of());
      var fit =
          DeviceFit.fit(
              view.devices(),
              List.of(need),
              classes,
              (d, taking) ->
                  d.health() == Device.Health.Healthy
                      && held.contains(d.name())
                      && !taking.contains(d.name()));
      if (fit.isEmpty()) {
        return Optional.empty();
      }
      out.putAll(fit.get());
    }
    return Optional.of(out);
  }
}
