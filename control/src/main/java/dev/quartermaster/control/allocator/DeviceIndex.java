package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.control.cluster.NodeReadiness;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The allocator's in-memory view of every node's devices and allocation record — a cache of the
 * store, kept up to date from informer events and from our own writes ({@link InFlightCommits}) —
 * with the schedulable nodes ordered by how many free healthy devices of each base class they have,
 * so a placement looks only at nodes that could hold it, smallest sufficient first (best fit, which
 * keeps large holes for large requests), not at every node.
 *
 * <p>The view may be stale; that is safe because every decision is re-checked against the live
 * record when the allocator writes it (compare-and-set), and the store refuses a claim write that
 * the record does not back. Thread-safe; it takes {@link InFlightCommits}' lock inside its own.
 */
public final class DeviceIndex {

  private final InFlightCommits commits;
  private final Map<String, NodeView> nodes = new HashMap<>();

  /**
   * Each node as if empty ({@link FleetCapacity}), made when a gang first needs it and dropped when
   * the node is indexed again.
   */
  private final Map<String, NodeView> emptied = new HashMap<>();

  private final Map<String, TreeSet<NodeFree>> byClass = new HashMap<>();

  /** Claim uid → node → devices its record entries hold. */
  private final Map<String, Map<String, Set<String>>> reservations = new HashMap<>();

  /**
   * Node → device → claim uid, for the devices the gang ledger's reservations hold: not free to
   * anyone else (the store would refuse them), but no record entry of their claims either, so no
   * member resumes one on its own before its gang's reservation is held.
   */
  private Map<String, Map<String, String>> gangReserved = Map.of();

  /** Per indexed node, the reserved devices its view was built with. */
  private final Map<String, Map<String, String>> indexedGangReserved = new HashMap<>();

  /** Packs gangs. */
  private final FitPolicy policy;

  DeviceIndex(InFlightCommits commits) {
    this(commits, FitPolicy.BEST_FIT);
  }

  DeviceIndex(InFlightCommits commits, FitPolicy policy) {
    this.commits = commits;
    this.policy = policy;
  }

  /**
   * Re-reads node {@code name} from {@code caches}, under this lock (see {@link NodeCaches}: never
   * from caches read before it, which another thread's refresh may have overtaken).
   */
  public synchronized void refresh(String name, NodeCaches caches) {
    refresh(name, caches.node(name), caches.record(name), caches.slices(name));
  }

  /**
   * Indexes one node as given ({@code node} empty: the node is gone; {@code record} empty: nothing
   * was ever allocated there, or our own write is all we know of it). The arguments must be the
   * newest there are: a caller on one of several threads reads them under this lock, as {@link
   * #refresh(String, NodeCaches)} does.
   */
  public synchronized void refresh(
      String name,
      Optional<Node> node,
      Optional<NodeAllocation> cachedRecord,
      List<DeviceSlice> slices) {
    var record = commits.latest(name, cachedRecord);
    var sources = NodeView.Sources.of(node, record, slices);
    var indexed = nodes.get(name);
    var reservedHere = gangReserved.getOrDefault(name, Map.of());
    if (indexed != null
        && indexed.sources().same(sources)
        && reservedHere.equals(indexedGangReserved.get(name))) {
      return;
    }
    unindex(name);
    if (node.isEmpty() && slices.isEmpty()) {
      return;
    }
    var devices = new ArrayList<Device>();
    slices.forEach(s -> devices.addAll(s.spec().devices()));
    var notReady =
        node.isEmpty()
            ? Optional.of("node " + name + " has no Node object")
            : NodeReadiness.whyNot(node.get());
    var held = new HashMap<String, String>();
    record.ifPresent(
        r -> r.spec().devices().forEach((device, holder) -> held.put(device, holder.uid())));
    var recorded = Map.copyOf(held);
    reservedHere.forEach(held::putIfAbsent);
    indexedGangReserved.put(name, reservedHere);
    var view =
        new NodeView(
            name,
            notReady,
            List.copyOf(devices),
            Map.copyOf(held),
            sources,
            node.map(n -> n.metadata().labels()).orElse(Map.of()),
            DeviceUse.of(slices.stream().map(DeviceSlice::spec).toList()));
    nodes.put(name, view);
    recorded.forEach(
        (device, uid) ->
            reservations
                .computeIfAbsent(uid, u -> new HashMap<>())
                .computeIfAbsent(name, n -> new TreeSet<>())
                .add(device));
    if (view.schedulable()) {
      devices.stream()
          .map(Device::deviceClass)
          .distinct()
          .forEach(
              cls ->
                  byClass
                      .computeIfAbsent(cls, c -> new TreeSet<>(NodeFree.FEWEST_FREE_FIRST))
                      .add(new NodeFree(view.free(cls), name)));
    }
  }

  /**
   * Our write of a node's record succeeded: index it now rather than when the informer delivers it,
   * with the node as the commit read it ({@code live}) or as cached, whichever is newer, and its
   * slices as cached, read under this lock: not a node as it was before a change (a cordon) that
   * the index has shown since, which no later event would correct.
   */
  public synchronized void wrote(NodeAllocation record, Optional<Node> live, NodeCaches caches) {
    commits.wrote(record);
    var name = record.metadata().name();
    refresh(
        name, NodeCaches.newer(live, caches.node(name)), caches.record(name), caches.slices(name));
  }

  /**
   * The gang ledger's reservations are now {@code ledger}: returns the nodes whose reserved devices
   * changed, for the caller to refresh.
   */
  public synchronized Set<String> gangReserved(GangLedgerSpec ledger) {
    var next = new HashMap<String, Map<String, String>>();
    ledger
        .byNode()
        .forEach(
            (node, devices) -> {
              var m = new HashMap<String, String>();
              devices.forEach((device, reserved) -> m.put(device, reserved.holder().uid()));
              next.put(node, Map.copyOf(m));
            });
    var changed = new TreeSet<String>();
    for (var node : union(next.keySet(), gangReserved.keySet())) {
      if (!next.getOrDefault(node, Map.of()).equals(gangReserved.getOrDefault(node, Map.of()))) {
        changed.add(node);
      }
    }
    gangReserved = Map.copyOf(next);
    return changed;
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    var out = new TreeSet<>(a);
    out.addAll(b);
    return out;
  }

  /** The record entries held by claim {@code uid}: node → devices. */
  public synchronized Map<String, Set<String>> reservationsOf(String uid) {
    var r = reservations.get(uid);
    if (r == null) {
      return Map.of();
    }
    var copy = new HashMap<String, Set<String>>();
    r.forEach((n, d) -> copy.put(n, Set.copyOf(d)));
    return copy;
  }

  public synchronized boolean isSchedulable(String node) {
    var v = nodes.get(node);
    return v != null && v.schedulable();
  }

  /**
   * Finds a node for all of {@code needs} ({@code pinned}: only that node) among free healthy
   * devices, or says why there is none. A node handed out is committing ({@link
   * InFlightCommits#begin}) until its commit ends; when the needs fit only on committing nodes, the
   * answer is {@link Placement.Busy}.
   */
  public synchronized Placement place(
      List<ClaimNeed> needs, Optional<String> pinned, Map<String, DeviceClass> classes) {
    return place(needs, pinned, classes, Optional.empty(), Map.of());
  }

  /**
   * As above, on nodes of {@code within} only (a member of a placed gang that requires one value of
   * a topology key), keeping off {@code closed} (node → devices reserved for the head of the line,
   * {@link HeadOfLine}).
   */
  public synchronized Placement place(
      List<ClaimNeed> needs,
      Optional<String> pinned,
      Map<String, DeviceClass> classes,
      Optional<TopologyValue> within,
      Map<String, Set<String>> closed) {
    var missing = ClaimNeed.missingClass(needs, classes);
    if (missing.isPresent()) {
      return new Placement.NoSuchDeviceClass(missing.get());
    }
    // Nodes another worker is committing to come last: their record is about to change, and two
    // workers picking the same best-fit devices would only make one of them lose the node's
    // compare-and-set (with 32 workers on 10 nodes, 1.5 lost races per claim, each retried with a
    // growing backoff: the last claims waited up to 45 s). So a fit only there waits for that
    // commit
    // instead, and a busy node never makes a claim look unplaceable. The walk stops at the first
    // fit: at 1,000 nodes, listing every candidate first cost more than the fit. Under this lock no
    // other placement walks, so the node found is still free to begin on.
    var busy = new ArrayList<String>();
    Iterable<String> walk = pinned.isPresent() ? List.of(pinned.get()) : candidates(needs, classes);
    for (var name : walk) {
      if (!inside(name, within)) {
        continue;
      }
      if (commits.isCommitting(name)) {
        busy.add(name);
        continue;
      }
      var placed = fit(name, needs, classes, closed);
      if (placed.isPresent() && commits.begin(name)) {
        return placed.get();
      }
    }
    for (var name : busy) {
      if (fit(name, needs, classes, closed).isPresent()) {
        return new Placement.Busy(name);
      }
    }
    var scope =
        pinned
            .map(p -> Optional.ofNullable(nodes.get(p)).map(List::of).orElse(List.of()))
            .orElseGet(() -> List.copyOf(nodes.values()))
            .stream()
            .filter(v -> inside(v.name(), within))
            .map(v -> v.closing(closed.getOrDefault(v.name(), Set.of())))
            .toList();
    return Shortfall.of(scope, needs, pinned, classes);
  }

  /** The schedulable nodes as indexed now: what a {@link HeadReservation} is computed over. */
  public synchronized List<NodeView> schedulable() {
    return nodes.values().stream().filter(NodeView::schedulable).toList();
  }

  /** Whether node {@code name} is known and of {@code within}, if that is given. */
  private boolean inside(String name, Optional<TopologyValue> within) {
    if (within.isEmpty()) {
      return true;
    }
    var view = nodes.get(name);
    return view != null && within.get().holds(view.labels());
  }

  /** The labels of node {@code name} as last indexed (empty if it is not). */
  public synchronized Map<String, String> labelsOf(String name) {
    var view = nodes.get(name);
    return view == null ? Map.of() : view.labels();
  }

  /**
   * Finds nodes for every one of {@code members} at once ({@link GangChoice}, packed by this
   * index's {@link FitPolicy}), keeping off {@code closed} (node → devices reserved for the head of
   * the line), or says why there are none. The nodes handed out are committing ({@link
   * InFlightCommits#begin}) until the gang's commit ends ({@link #commitEnded}).
   */
  public synchronized GangPlacement placeGang(
      List<GangFit.Member> members,
      Map<String, DeviceClass> classes,
      GangTopology topology,
      Map<String, Set<String>> closed) {
    var missing =
        ClaimNeed.missingClass(members.stream().flatMap(m -> m.needs().stream()).toList(), classes);
    if (missing.isPresent()) {
      return new GangPlacement.NoSuchDeviceClass(missing.get());
    }
    var fleet = fleet(members, classes, topology, closed);
    var placement = GangChoice.of(fleet, members, classes, topology, policy);
    if (placement instanceof GangPlacement.Placed placed) {
      placed.nodes().forEach(commits::begin);
    }
    return placement;
  }

  /** The commit that a placement on {@code node} began has finished, written or not. */
  public void commitEnded(String node) {
    commits.end(node);
  }

  /** The fleet as indexed now, for a gang's decision (called under this index's lock). */
  private GangChoice.Fleet fleet(
      List<GangFit.Member> members,
      Map<String, DeviceClass> classes,
      GangTopology topology,
      Map<String, Set<String>> closed) {
    return new GangChoice.Fleet() {
      @Override
      public Optional<List<NodeView>> fewestThatHold() {
        return DeviceIndex.this
            .fewestThatHold(members, classes, topology)
            .map(
                l ->
                    l.stream()
                        .map(v -> v.closing(closed.getOrDefault(v.name(), Set.of())))
                        .toList());
      }

      @Override
      public List<NodeView> free() {
        return schedulable(false, closed);
      }

      @Override
      public List<NodeView> busy() {
        return schedulable(true, closed);
      }

      @Override
      public List<NodeView> emptied() {
        var fleet = new ArrayList<NodeView>();
        for (var v : nodes.values()) {
          fleet.add(emptied.computeIfAbsent(v.name(), n -> FleetCapacity.emptied(v)));
        }
        return fleet;
      }
    };
  }

  /**
   * The schedulable nodes being committed to ({@code committing}) or not, keeping off {@code
   * closed}.
   */
  private List<NodeView> schedulable(boolean committing, Map<String, Set<String>> closed) {
    var out = new ArrayList<NodeView>();
    for (var v : nodes.values()) {
      if (v.schedulable() && commits.isCommitting(v.name()) == committing) {
        out.add(v.closing(closed.getOrDefault(v.name(), Set.of())));
      }
    }
    return out;
  }

  /**
   * For best fit with no topology rule: the few nodes its walk can reach, taken from this index's
   * order rather than by sorting the whole fleet per decision (at 1,000 nodes that was a fifth of a
   * round of 8-member gangs' CPU, under this lock). They are the nodes not being committed to,
   * fewest free first from the smallest member's need, until they would hold every member even if
   * each took the largest member's need. Best fit over them picks what it picks over every node
   * whenever it fits them all, since each node left out comes after all of them in its order (and a
   * node only moves earlier as members take from it); when it does not, the caller looks at every
   * node. Empty when that shortcut does not apply or the fleet is too small for it.
   */
  private Optional<List<NodeView>> fewestThatHold(
      List<GangFit.Member> members, Map<String, DeviceClass> classes, GangTopology topology) {
    if (!policy.picksAmongFewestFree()
        || topology.required().isPresent()
        || topology.preferred().isPresent()) {
      return Optional.empty();
    }
    var base = GangFit.baseClass(members, classes);
    var ordered = base.map(byClass::get);
    if (ordered.isEmpty() || ordered.get() == null) {
      return Optional.empty();
    }
    int least = Integer.MAX_VALUE;
    int most = 0;
    for (var m : members) {
      int needed = GangFit.needed(m, classes, base);
      least = Math.min(least, needed);
      most = Math.max(most, needed);
    }
    if (least == 0) {
      return Optional.empty(); // a member that needs none of the base class: any node may hold it
    }
    var out = new ArrayList<NodeView>();
    int holds = 0;
    for (var n : ordered.get().tailSet(NodeFree.atLeast(least), true)) {
      if (commits.isCommitting(n.node())) {
        continue;
      }
      out.add(nodes.get(n.node()));
      holds += n.free() / most;
      if (holds >= members.size()) {
        return Optional.of(out);
      }
    }
    return Optional.empty();
  }

  private Optional<Placement.Placed> fit(
      String name,
      List<ClaimNeed> needs,
      Map<String, DeviceClass> classes,
      Map<String, Set<String>> closed) {
    var indexed = nodes.get(name);
    if (indexed == null || !indexed.schedulable()) {
      return Optional.empty();
    }
    var view = indexed.closing(closed.getOrDefault(name, Set.of()));
    var fit = DeviceFit.fit(view.devices(), needs, classes, view.freeTest(Set.of()));
    return fit.map(devices -> new Placement.Placed(name, devices));
  }

  /** Node {@code name} as indexed now, if it is known and schedulable. */
  public synchronized Optional<NodeView> schedulableView(String name) {
    return Optional.ofNullable(nodes.get(name)).filter(NodeView::schedulable);
  }

  /**
   * Nodes with enough free devices of the first request's base class, fewest free first; a view,
   * walked lazily.
   */
  private Iterable<String> candidates(List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    // The base class of the first request bounds the search: only nodes with enough of it.
    var first = needs.stream().flatMap(n -> n.requests().stream()).findFirst();
    if (first.isEmpty()) {
      return List.of();
    }
    var base = classes.get(first.get().deviceClassName()).spec().deviceClass();
    int needed =
        needs.stream()
            .flatMap(n -> n.requests().stream())
            .filter(r -> classes.get(r.deviceClassName()).spec().deviceClass().equals(base))
            .mapToInt(r -> r.count())
            .sum();
    var set = byClass.get(base);
    if (set == null) {
      return List.of();
    }
    var tail = set.tailSet(NodeFree.atLeast(needed), true);
    return () -> tail.stream().map(NodeFree::node).iterator();
  }

  private void unindex(String name) {
    emptied.remove(name);
    var old = nodes.remove(name);
    indexedGangReserved.remove(name);
    if (old == null) {
      return;
    }
    old.held()
        .forEach(
            (device, uid) -> {
              var byNode = reservations.get(uid);
              if (byNode != null) {
                var set = byNode.get(name);
                if (set != null) {
                  set.remove(device);
                  if (set.isEmpty()) {
                    byNode.remove(name);
                  }
                }
                if (byNode.isEmpty()) {
                  reservations.remove(uid);
                }
              }
            });
    if (old.schedulable()) {
      old.devices().stream()
          .map(Device::deviceClass)
          .distinct()
          .forEach(
              cls -> {
                var set = byClass.get(cls);
                if (set != null) {
                  set.remove(new NodeFree(old.free(cls), name));
                }
              });
    }
  }
}
