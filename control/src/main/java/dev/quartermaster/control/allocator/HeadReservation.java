package dev.quartermaster.control.allocator;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.gang.GangTopology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What the head of the line — the waiting job that goes next — is promised while it cannot be
 * placed: the devices it will get and when ({@code start}, on the allocator's monotonic clock;
 * empty: never known, as some of them are held by a job with no deadline). Pure: computed from a
 * snapshot of the nodes and, per holder (claim uid), when it gives its devices back.
 *
 * <p>How it chooses: for each moment a holder gives devices back (by its deadline), in order, the
 * nodes are seen as they will be then — every device whose holder is gone by then free — and the
 * head is fitted there as {@link GangFit} fits it now (best fit, within its topology). The first
 * moment it fits is {@code start}, and what it fits on is reserved. So the devices are those that
 * free up soonest. The moments are searched by bisection (the fit is asked a logarithm of the
 * holders' count of times, not once per holder); more free devices only add room, so a later moment
 * fits whenever an earlier one does, save for best fit's greed, which may make the found moment a
 * little later than the first.
 *
 * <p>Why it bounds the head's wait: a smaller job may take a reserved device only if it ends before
 * {@code start} ({@link #admits}); every other holder of a reserved device ends by {@code start} by
 * its deadline, which the control plane enforces. So at {@code start} every reserved device is free
 * (faults aside) and the head fits. A reservation computed again later can only start as soon or
 * sooner: the earlier one's devices are all still free by its {@code start}, so that moment still
 * fits.
 *
 * @param head the waiting key's name ({@code gang/<workload>/<gang>} or {@code task/<name>})
 * @param start when it will fit, on the allocator's clock (nanoseconds); empty: not before a holder
 *     without a deadline ends
 * @param devices per node, the devices reserved for it
 * @param holders the claim uids that hold reserved devices now, whose end the start waits for
 */
record HeadReservation(
    String head, OptionalLong start, Map<String, Set<String>> devices, Set<String> holders) {

  /** The holder a reserved device shows to a decision that must keep off it. */
  static final String HOLDER = "reserved-for-the-head-of-the-line";

  HeadReservation {
    var copy = new TreeMap<String, Set<String>>();
    devices.forEach((n, d) -> copy.put(n, Set.copyOf(new TreeSet<>(d))));
    devices = java.util.Collections.unmodifiableMap(copy);
    holders = Set.copyOf(holders);
  }

  /**
   * The reservation for {@code members}, or empty when they would not fit even with every device
   * free (the fleet as it is can never hold them: nothing is worth reserving).
   *
   * @param nodes the schedulable nodes as they are now (held devices included)
   * @param releaseOf per holder's claim uid, when it gives its devices back (empty: never known)
   * @param now the allocator's clock now
   */
  static Optional<HeadReservation> of(
      String head,
      List<NodeView> nodes,
      Function<String, OptionalLong> releaseOf,
      List<GangFit.Member> members,
      Map<String, DeviceClass> classes,
      GangTopology topology,
      long now) {
    var releases = new HashMap<String, OptionalLong>();
    var moments = new TreeSet<Long>();
    moments.add(now);
    for (var n : nodes) {
      for (var uid : n.held().values()) {
        var at = releases.computeIfAbsent(uid, releaseOf);
        at.ifPresent(t -> moments.add(Math.max(now, t)));
      }
    }
    var times = new ArrayList<>(moments);
    var found = fitAt(nodes, releases, OptionalLong.empty(), members, classes, topology);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    // The first finite moment it fits at; none: it waits for a holder without a deadline.
    OptionalLong start = OptionalLong.empty();
    int lo = 0;
    int hi = times.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      var at = OptionalLong.of(times.get(mid));
      var fit = fitAt(nodes, releases, at, members, classes, topology);
      if (fit.isPresent()) {
        found = fit;
        start = at;
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    var reserved = new TreeMap<String, Set<String>>();
    for (var placed : found.get().values()) {
      var set = reserved.computeIfAbsent(placed.node(), k -> new TreeSet<>());
      placed.devices().values().forEach(ds -> ds.forEach(d -> set.add(d.device())));
    }
    var holders = new TreeSet<String>();
    for (var n : nodes) {
      var mine = reserved.getOrDefault(n.name(), Set.of());
      n.held()
          .forEach(
              (device, uid) -> {
                if (mine.contains(device)) {
                  holders.add(uid);
                }
              });
    }
    return Optional.of(new HeadReservation(head, start, reserved, holders));
  }

  /**
   * {@code members} fitted on {@code nodes} as they will be at {@code at} (empty: never, every
   * holder gone).
   */
  private static Optional<Map<String, Placement.Placed>> fitAt(
      List<NodeView> nodes,
      Map<String, OptionalLong> releases,
      OptionalLong at,
      List<GangFit.Member> members,
      Map<String, DeviceClass> classes,
      GangTopology topology) {
    var then = new ArrayList<NodeView>();
    for (var n : nodes) {
      var held = new HashMap<String, String>();
      n.held()
          .forEach(
              (device, uid) -> {
                var release = releases.getOrDefault(uid, OptionalLong.empty());
                boolean gone =
                    at.isEmpty() || (release.isPresent() && release.getAsLong() <= at.getAsLong());
                if (!gone) {
                  held.put(device, uid);
                }
              });
      then.add(n.holding(held));
    }
    return GangFit.fit(then, members, classes, topology, FitPolicy.BEST_FIT)
            instanceof GangFit.Outcome.Fits fits
        ? Optional.of(fits.byMember())
        : Optional.empty();
  }

  /**
   * Whether a job that gives its devices back by {@code endsBy} (empty: no deadline) may take
   * reserved devices: only if it is gone before the head's start, so it cannot delay it.
   */
  boolean admits(OptionalLong endsBy) {
    return start.isPresent() && endsBy.isPresent() && endsBy.getAsLong() <= start.getAsLong();
  }

  /** Whether {@code device} of {@code node} is reserved. */
  boolean reserves(String node, String device) {
    return devices.getOrDefault(node, Set.of()).contains(device);
  }

  /** How many devices are reserved. */
  int size() {
    return devices.values().stream().mapToInt(Set::size).sum();
  }
}
