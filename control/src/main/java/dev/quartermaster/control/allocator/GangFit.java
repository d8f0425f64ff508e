package dev.quartermaster.control.allocator;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.gang.GangTopology;
import java.util.ArrayList;
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
 * label; nodes without it are not used); with none, all nodes are one domain. A preferred key
 * splits a domain's nodes into groups by that label's value. The {@link FitPolicy} says in which
 * order members fill the groups and a group's nodes, and which of the domains that hold the gang is
 * taken; members are placed in order, each on the first node that holds it. Deterministic.
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
      FitPolicy policy) {
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
      var placed = pack(domain.getValue(), members, classes, base, topology.preferred(), policy);
      var where =
          topology.required().isPresent() ? Optional.of(domain.getKey()) : Optional.<String>empty();
      if (placed.size() == members.size()) {
        int free = domain.getValue().stream().mapToInt(n -> base.map(n::free).orElse(0)).sum();
        if (policy.prefers(free, bestFree)) {
          bestFree = free;
          best = Optional.of(placed);
        }
        if (!policy.prefers(0, bestFree)) {
          break; // no domain left could be taken over this one
        }
      } else if (placed.size() > most) {
        most = placed.size();
        mostWhere = where;
      }
    }
    return best.<Outcome>map(Outcome.Fits::new).orElse(new Outcome.Short(most, mostWhere));
  }

  /**
   * Members packed into {@code nodes} as {@code policy} says, in member order, as many as fit (all,
   * or the first that did not fit ends it): per task, its placement.
   */
  private static Map<String, Placement.Placed> pack(
      List<NodeView> nodes,
      List<Member> members,
      Map<String, DeviceClass> classes,
      Optional<String> base,
      Optional<String> preferred,
      FitPolicy policy) {
    var taken = new HashMap<String, Set<String>>();
    var byName = new HashMap<String, NodeView>();
    nodes.forEach(n -> byName.put(n.name(), n));
    var groups = new TreeMap<String, List<NodeView>>();
    for (var n : nodes) {
      groups
          .computeIfAbsent(
              preferred.map(k -> n.labels().getOrDefault(k, "")).orElse(""), k -> new ArrayList<>())
          .add(n);
    }
    var order = policy.fillOrder(groups, n -> base.map(n::free).orElse(0));
    var out = new LinkedHashMap<String, Placement.Placed>();
    int next = 0;
    for (var group : order) {
      var byFree = new TreeSet<>(policy.nodeOrder());
      for (var n : group) {
        byFree.add(new NodeFree(free(n, base, taken), n.name()));
      }
      while (next < members.size()) {
        var member = members.get(next);
        int needed = needed(member, classes, base);
        Optional<Placement.Placed> placed = Optional.empty();
        for (var candidate : policy.tries(byFree, needed)) {
          if (candidate.free() < needed) {
            continue;
          }
          var view = byName.get(candidate.node());
          var mine = taken.getOrDefault(view.name(), Set.of());
          var fit = DeviceFit.fit(view.devices(), member.needs(), classes, view.freeTest(mine));
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
    return n.free(base.get(), taken.getOrDefault(n.name(), Set.of()));
  }
}
