package dev.quartermaster.control.allocator;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.gang.GangTopology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where a gang's members go, all of them or none: pure, over the nodes a decision may use.
 *
 * <p>How it chooses. A required topology key splits the nodes into domains (one per value of the
 * label; nodes without it are not used); with none, all nodes are one domain. In each domain the
 * members are packed best fit: each member goes to the node with the fewest free devices that still
 * holds it, so whole free nodes stay whole for the next large gang rather than being nibbled (first
 * fit and spreading both strand a few free GPUs on many nodes). A preferred key orders the domain's
 * nodes by that label's value, fullest value first, so members fill one rack before starting the
 * next: the fewest racks the gang can fit in, greedily. Of the domains the gang fits in, the one
 * with the fewest free devices is taken (best fit again, one level up). Deterministic: ties go by
 * name.
 *
 * <p>{@link Packing#FIRST_FIT} instead takes each member to the first node by name that holds it,
 * preferred values in label order and the first domain that holds the gang: only for the bench's
 * comparison.
 */
final class GangFit {
  private GangFit() {}

  /** One member of a gang: its task and what its claims ask for. */
  record Member(String task, List<ClaimNeed> needs) {
    public Member {
      needs = List.copyOf(needs);
    }
  }

  /** The answer. */
  sealed interface Outcome {
    /** Every member placed: per task, its node and devices. */
    record Fits(Map<String, Placement.Placed> byMember) implements Outcome {
      public Fits {
        byMember = Map.copyOf(byMember);
      }
    }

    /**
     * Not all fit: at most {@code most} of them would, in {@code where} (the domain's label value;
     * empty: no required key).
     */
    record Short(int most, Optional<String> where) implements Outcome {}
  }

  /**
   * Places every one of {@code members} on {@code nodes} (schedulable, none being committed to), or
   * says how many would fit at best. {@code classes} holds every class the needs name.
   */
  static Outcome fit(
      List<NodeView> nodes,
      List<Member> members,
      Map<String, DeviceClass> classes,
      GangTopology topology,
      Packing packing) {
    var domains = new TreeMap<String, List<NodeView>>();
    for (var n : nodes) {
      if (topology.required().isEmpty()) {
        domains.computeIfAbsent("", k -> new ArrayList<>()).add(n);
      } else {
        var value = n.labels().get(topology.required().get());
        if (value != null) {
          domains.computeIfAbsent(value, k -> new ArrayList<>()).add(n);
        }
      }
    }
    var base = baseClass(members, classes);
    Optional<Map<String, Placement.Placed>> best = Optional.empty();
    int bestFree = Integer.MAX_VALUE;
    int most = 0;
    Optional<String> mostWhere = Optional.empty();
    for (var domain : domains.entrySet()) {
      var placed = pack(domain.getValue(), members, classes, base, topology.preferred(), packing);
      var where =
          topology.required().isPresent() ? Optional.of(domain.getKey()) : Optional.<String>empty();
      if (placed.size() == members.size()) {
        int free = domain.getValue().stream().mapToInt(n -> base.map(n::free).orElse(0)).sum();
        if (free < bestFree) {
          bestFree = free;
          best = Optional.of(placed);
        }
        if (packing == Packing.FIRST_FIT) {
          break;
        }
      } else if (placed.size() > most) {
        most = placed.size();
        mostWhere = where;
      }
    }
    return best.<Outcome>map(Outcome.Fits::new).orElse(new Outcome.Short(most, mostWhere));
  }

  /**
   * Members packed into {@code nodes} as {@code packing} says, in member order, as many as fit
   * (all, or the first that did not fit ends it): per task, its placement.
   */
  private static Map<String, Placement.Placed> pack(
      List<NodeView> nodes,
      List<Member> members,
      Map<String, DeviceClass> classes,
      Optional<String> base,
      Optional<String> preferred,
      Packing packing) {
    boolean best = packing == Packing.BEST_FIT;
    var taken = new HashMap<String, Set<String>>();
    var byName = new HashMap<String, NodeView>();
    nodes.forEach(n -> byName.put(n.name(), n));
    // Preferred key: the label values, fullest first; each value's nodes in best-fit order (first
    // fit: values in label order, nodes by name).
    var groups = new TreeMap<String, List<NodeView>>();
    for (var n : nodes) {
      groups
          .computeIfAbsent(
              preferred.map(k -> n.labels().getOrDefault(k, "")).orElse(""), k -> new ArrayList<>())
          .add(n);
    }
    var order =
        best
            ? groups.entrySet().stream()
                .sorted(
                    Comparator.comparingInt(
                            (Map.Entry<String, List<NodeView>> e) ->
                                -e.getValue().stream()
                                    .mapToInt(n -> base.map(n::free).orElse(0))
                                    .sum())
                        .thenComparing(Map.Entry::getKey))
                .map(Map.Entry::getValue)
                .toList()
            : List.copyOf(groups.values());
    var out = new LinkedHashMap<String, Placement.Placed>();
    int next = 0;
    for (var group : order) {
      var byFree = new TreeSet<>(best ? BEST_FIRST : BY_NAME);
      for (var n : group) {
        byFree.add(new NodeFree(free(n, base, taken), n.name()));
      }
      while (next < members.size()) {
        var member = members.get(next);
        int needed = needed(member, classes, base);
        Optional<Placement.Placed> placed = Optional.empty();
        for (var candidate : best ? byFree.tailSet(new NodeFree(needed, ""), true) : byFree) {
          if (candidate.free() < needed) {
            continue;
          }
          var view = byName.get(candidate.node());
          var mine = taken.getOrDefault(view.name(), Set.of());
          var fit =
              DeviceFit.fit(
                  view.devices(),
                  member.needs(),
                  classes,
                  (d, taking) -> view.isFree(d, mine, taking));
          if (fit.isPresent()) {
            placed = Optional.of(new Placement.Placed(view.name(), fit.get()));
            byFree.remove(candidate);
            var set = taken.computeIfAbsent(view.name(), k -> new HashSet<>());
            fit.get().values().forEach(ds -> ds.forEach(d -> set.add(d.device())));
            byFree.add(new NodeFree(free(view, base, taken), view.name()));
            break;
          }
        }
        if (placed.isEmpty()) {
          break; // the next group, if any, may hold it
        }
        out.put(member.task(), placed.get());
        next++;
      }
      if (next == members.size()) {
        break;
      }
    }
    return out;
  }

  private record NodeFree(int free, String node) {}

  /** Best fit's walk: fewest free first, then by name. */
  private static final Comparator<NodeFree> BEST_FIRST =
      Comparator.comparingInt(NodeFree::free).thenComparing(NodeFree::node);

  /** First fit's walk: by name only. */
  private static final Comparator<NodeFree> BY_NAME = Comparator.comparing(NodeFree::node);

  /** The base class of the first request: the one best fit counts by, as the index does. */
  static Optional<String> baseClass(List<Member> members, Map<String, DeviceClass> classes) {
    return members.stream()
        .flatMap(m -> m.needs().stream())
        .flatMap(n -> n.requests().stream())
        .findFirst()
        .map(r -> classes.get(r.deviceClassName()).spec().deviceClass());
  }

  /** How many devices of the base class {@code m} needs. */
  static int needed(Member m, Map<String, DeviceClass> classes, Optional<String> base) {
    return m.needs().stream()
        .flatMap(n -> n.requests().stream())
        .filter(
            r ->
                base.isPresent()
                    && classes.get(r.deviceClassName()).spec().deviceClass().equals(base.get()))
        .mapToInt(r -> r.count())
        .sum();
  }

  private static int free(NodeView n, Optional<String> base, Map<String, Set<String>> taken) {
    if (base.isEmpty()) {
      return 0;
    }
    var mine = taken.getOrDefault(n.name(), Set.of());
    int free = 0;
    for (Device d : n.devices()) {
      if (d.deviceClass().equals(base.get()) && n.isFree(d, mine, Set.of())) {
        free++;
      }
    }
    return free;
  }
}
