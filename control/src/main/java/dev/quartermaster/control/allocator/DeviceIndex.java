package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.control.cluster.NodeReadiness;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The allocator's in-memory view of every node's devices and allocation record, kept up to date
 * from informer events, with the schedulable nodes ordered by how many free healthy devices of
 * each base class they have — so a placement looks only at nodes that could hold it, smallest
 * sufficient first (best fit, which keeps large holes for large requests), not at every node.
 *
 * <p>The view may be stale; that is safe because every decision is re-checked against the live
 * record when the allocator writes it (compare-and-set), and the store refuses a claim write that
 * the record does not back. Thread-safe.
 */
public final class DeviceIndex {

  /**
   * One node as the index sees it.
   *
   * @param notReady why the node takes no allocations (empty: it does)
   * @param held the node's allocation record: device → the holder's claim uid
   * @param sources the revisions it was built from
   */
  record NodeView(String name, Optional<String> notReady, List<Device> devices, Map<String, String> held,
      Sources sources) {
    boolean schedulable() {
      return notReady.isEmpty();
    }

    int free(String baseClass) {
      return (int) devices.stream()
          .filter(d -> d.health() == Device.Health.Healthy && d.deviceClass().equals(baseClass)
              && !held.containsKey(d.name()))
          .count();
    }
  }

  /**
   * The revisions of the node object, its record and its slices (0: absent) that a view was built
   * from: the same again means the same view. Each allocation reaches the index twice, from our own
   * write ({@link #wrote}) and then from the informer's event of that same write; the second need
   * not rebuild the node. An object never stored (revision 0, as in tests) makes it unknown.
   */
  record Sources(long node, long record, List<Long> slices, boolean known) {
    static Sources of(Optional<Node> node, Optional<NodeAllocation> record, List<DeviceSlice> slices) {
      long n = node.map(x -> x.metadata().revision()).orElse(0L);
      long r = record.map(x -> x.metadata().revision()).orElse(0L);
      var s = slices.stream().map(x -> x.metadata().revision()).sorted().toList();
      boolean known = (node.isEmpty() || n > 0) && (record.isEmpty() || r > 0) && s.stream().allMatch(x -> x > 0);
      return new Sources(n, r, s, known);
    }

    boolean same(Sources other) {
      return known && equals(other);
    }
  }

  private record NodeFree(int free, String node) {}

  private static final Comparator<NodeFree> ORDER =
      Comparator.comparingInt(NodeFree::free).thenComparing(NodeFree::node);

  private final Map<String, NodeView> nodes = new HashMap<>();
  private final Map<String, TreeSet<NodeFree>> byClass = new HashMap<>();
  /** Claim uid → node → devices its record entries hold. */
  private final Map<String, Map<String, Set<String>>> reservations = new HashMap<>();

  /**
   * The record as our own last write left it, kept until the cache shows that revision: the next
   * placement then sees the devices we just took instead of picking them again and losing the
   * compare-and-set (with one allocator filling nodes best fit, about a fifth of the allocations in
   * the end-to-end bench did).
   */
  private final Map<String, NodeAllocation> written = new HashMap<>();
  /** Nodes a placement was handed out on and whose commit has not finished (see {@link #place}). */
  private final Set<String> committing = new HashSet<>();
  /** Per committing node, the queue keys told {@link Placement.Busy} about it: woken when it is done. */
  private final Map<String, Set<String>> waiting = new HashMap<>();

  /**
   * Re-reads one node from the caches' current state ({@code node} empty: the node is gone;
   * {@code record} empty: nothing was ever allocated there).
   */
  public synchronized void refresh(String name, Optional<Node> node, Optional<NodeAllocation> record, List<DeviceSlice> slices) {
    var ours = written.get(name);
    if (ours != null && (record.isEmpty() || ours.metadata().revision() >= record.get().metadata().revision())) {
      record = Optional.of(ours); // the cache is not past our own write yet
    } else {
      written.remove(name);
    }
    var sources = Sources.of(node, record, slices);
    var indexed = nodes.get(name);
    if (indexed != null && indexed.sources().same(sources)) {
      return;
    }
    unindex(name);
    if (node.isEmpty() && slices.isEmpty()) {
      return;
    }
    var devices = new ArrayList<Device>();
    slices.forEach(s -> devices.addAll(s.spec().devices()));
    var notReady = node.isEmpty() ? Optional.of("node " + name + " has no Node object") : NodeReadiness.whyNot(node.get());
    var held = new HashMap<String, String>();
    record.ifPresent(r -> r.spec().devices().forEach((device, holder) -> held.put(device, holder.uid())));
    var view = new NodeView(name, notReady, List.copyOf(devices), Map.copyOf(held), sources);
    nodes.put(name, view);
    view.held().forEach((device, uid) ->
        reservations.computeIfAbsent(uid, u -> new HashMap<>()).computeIfAbsent(name, n -> new TreeSet<>()).add(device));
    if (view.schedulable()) {
      devices.stream().map(Device::deviceClass).distinct().forEach(cls ->
          byClass.computeIfAbsent(cls, c -> new TreeSet<>(ORDER)).add(new NodeFree(view.free(cls), name)));
    }
  }

  /** The record of {@code node} was deleted: our own last write of it no longer stands for it. */
  public synchronized void recordDeleted(String node) {
    written.remove(node);
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
   * devices, or says why there is none. A node handed out is committing until {@link #committed};
   * when the needs fit only on committing nodes, the answer is {@link Placement.Busy} and {@code
   * waiter} is handed back by that node's {@link #committed} (under this lock, so never missed).
   */
  public synchronized Placement place(List<ClaimNeed> needs, Optional<String> pinned, Map<String, DeviceClass> classes,
      String waiter) {
    for (var need : needs) {
      for (var r : need.requests()) {
        if (!classes.containsKey(r.deviceClassName())) {
          return new Placement.NoSuchDeviceClass("claim " + need.claim() + " request " + r.name()
              + " names device class '" + r.deviceClassName() + "', which does not exist");
        }
      }
    }
    // Nodes another worker is committing to come last: their record is about to change, and two
    // workers picking the same best-fit devices would only make one of them lose the node's
    // compare-and-set (with 32 workers on 10 nodes, 1.5 lost races per claim, each retried with a
    // growing backoff: the last claims waited up to 45 s). So a fit only there waits for that commit
    // instead, and a busy node never makes a claim look unplaceable. The walk stops at the first
    // fit: at 1,000 nodes, listing every candidate first cost more than the fit.
    var busy = new ArrayList<String>();
    Iterable<String> walk = pinned.isPresent() ? List.of(pinned.get()) : candidates(needs, classes);
    for (var name : walk) {
      if (committing.contains(name)) {
        busy.add(name);
        continue;
      }
      var placed = tryPlace(name, needs, classes);
      if (placed.isPresent()) {
        return placed.get();
      }
    }
    for (var name : busy) {
      if (fit(name, needs, classes).isPresent()) {
        waiting.computeIfAbsent(name, n -> new HashSet<>()).add(waiter);
        return new Placement.Busy(name);
      }
    }
    return whyNoPlace(needs, pinned, classes);
  }

  private Optional<Placement.Placed> tryPlace(String name, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    var placed = fit(name, needs, classes);
    placed.ifPresent(p -> committing.add(name));
    return placed;
  }

  private Optional<Placement.Placed> fit(String name, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    var view = nodes.get(name);
    if (view == null || !view.schedulable()) {
      return Optional.empty();
    }
    var fit = DeviceFit.fit(view.devices(), needs, classes,
        d -> d.health() == Device.Health.Healthy && !view.held().containsKey(d.name()));
    return fit.map(devices -> new Placement.Placed(name, devices));
  }

  /**
   * The commit of a placement on {@code node} that {@link #place} handed out has finished (its
   * record write, if it succeeded, is indexed already): returns the keys that waited for it.
   */
  public synchronized Set<String> committed(String node) {
    committing.remove(node);
    var woken = waiting.remove(node);
    return woken == null ? Set.of() : woken;
  }

  /**
   * Our write of a node's record succeeded: index it now rather than when the informer delivers
   * it. Only ever fresher than the cache; a stale view stays safe (every commit re-reads live), this
   * just keeps it from being stale about our own writes.
   */
  public synchronized void wrote(NodeAllocation record, Optional<Node> node, List<DeviceSlice> slices) {
    var name = record.metadata().name();
    var indexed = written.get(name);
    if (indexed == null || indexed.metadata().revision() < record.metadata().revision()) {
      written.put(name, record);
    }
    refresh(name, node, Optional.of(written.get(name)), slices);
  }

  /**
   * Fits {@code needs} into the devices already reserved for them on {@code node} (claim name →
   * its uid's reserved devices): finishing an allocation whose record write landed but whose claim
   * writes did not.
   */
  public synchronized Optional<Map<String, List<AllocatedDevice>>> fitReserved(
      String node, List<ClaimNeed> needs, Map<String, Set<String>> reservedByClaim, Map<String, DeviceClass> classes) {
    var view = nodes.get(node);
    if (view == null || !view.schedulable()) {
      return Optional.empty();
    }
    var out = new HashMap<String, List<AllocatedDevice>>();
    for (var need : needs) {
      var reserved = reservedByClaim.getOrDefault(need.claim(), Set.of());
      var fit = DeviceFit.fit(view.devices(), List.of(need), classes,
          d -> d.health() == Device.Health.Healthy && reserved.contains(d.name()));
      if (fit.isEmpty()) {
        return Optional.empty();
      }
      out.putAll(fit.get());
    }
    return Optional.of(out);
  }

  /** Nodes with enough free devices of the first request's base class, fewest free first; a view, walked lazily. */
  private Iterable<String> candidates(List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    // The base class of the first request bounds the search: only nodes with enough of it.
    var first = needs.stream().flatMap(n -> n.requests().stream()).findFirst();
    if (first.isEmpty()) {
      return List.of();
    }
    var base = classes.get(first.get().deviceClassName()).spec().deviceClass();
    int needed = needs.stream().flatMap(n -> n.requests().stream())
        .filter(r -> classes.get(r.deviceClassName()).spec().deviceClass().equals(base))
        .mapToInt(r -> r.count()).sum();
    var set = byClass.get(base);
    if (set == null) {
      return List.of();
    }
    var tail = set.tailSet(new NodeFree(needed, ""), true);
    return () -> tail.stream().map(NodeFree::node).iterator();
  }

  private Placement whyNoPlace(List<ClaimNeed> needs, Optional<String> pinned, Map<String, DeviceClass> classes) {
    var what = describe(needs, classes);
    // Could any node hold it at all, were every device healthy and free? Only this slow path scans.
    var scope = pinned.map(p -> Optional.ofNullable(nodes.get(p)).map(List::of).orElse(List.of()))
        .orElseGet(() -> List.copyOf(nodes.values()));
    if (scope.isEmpty()) {
      return new Placement.Waiting(pinned.map(p -> "node " + p + " has published no devices")
          .orElse("no node has published devices yet") + "; need " + what);
    }
    boolean everFits = scope.stream().anyMatch(v -> DeviceFit.fit(v.devices(), needs, classes, d -> true).isPresent());
    if (!everFits) {
      int most = scope.stream().mapToInt(v -> matching(v, needs, classes)).max().orElse(0);
      return new Placement.Unsatisfiable("need " + what + ", but "
          + pinned.map(p -> "node " + p + " has").orElse("the largest node has") + " only " + most
          + " matching device(s)");
    }
    return new Placement.Waiting("no node can take " + what + " now: " + perNode(scope, needs, classes));
  }

  /** Each node's reason, so a person sees exactly what to fix: "node-2 is not DevicesReady: missing /dev/nvidia-uvm". */
  private static String perNode(List<NodeView> scope, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    var sorted = scope.stream().sorted(Comparator.comparing(NodeView::name)).toList();
    var parts = new ArrayList<String>();
    for (var v : sorted.subList(0, Math.min(MAX_NODES_EXPLAINED, sorted.size()))) {
      parts.add(v.notReady().orElseGet(() -> "node " + v.name() + " has " + freeMatching(v, needs, classes)
          + " free healthy matching device(s)"));
    }
    if (sorted.size() > MAX_NODES_EXPLAINED) {
      parts.add("and " + (sorted.size() - MAX_NODES_EXPLAINED) + " more node(s)");
    }
    return String.join("; ", parts);
  }

  private static final int MAX_NODES_EXPLAINED = 5;

  private static long freeMatching(NodeView v, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    return v.devices().stream().filter(d -> d.health() == Device.Health.Healthy && !v.held().containsKey(d.name()))
        .filter(d -> needs.stream().flatMap(n -> n.requests().stream())
            .anyMatch(r -> DeviceFit.matches(d, classes.get(r.deviceClassName()))
                && r.selectors().stream().allMatch(sel -> sel.matches(d.attributes()))))
        .count();
  }

  private static int matching(NodeView v, List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    return (int) v.devices().stream().filter(d -> needs.stream().flatMap(n -> n.requests().stream())
        .anyMatch(r -> DeviceFit.matches(d, classes.get(r.deviceClassName()))
            && r.selectors().stream().allMatch(s -> s.matches(d.attributes())))).count();
  }

  private static String describe(List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    var parts = new ArrayList<String>();
    for (var n : needs) {
      for (var r : n.requests()) {
        parts.add(r.count() + " x " + r.deviceClassName() + " (class "
            + classes.get(r.deviceClassName()).spec().deviceClass() + ") for claim " + n.claim());
      }
    }
    return String.join(", ", parts);
  }

  private void unindex(String name) {
    var old = nodes.remove(name);
    if (old == null) {
      return;
    }
    old.held().forEach((device, uid) -> {
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
      old.devices().stream().map(Device::deviceClass).distinct().forEach(cls -> {
        var set = byClass.get(cls);
        if (set != null) {
          set.remove(new NodeFree(old.free(cls), name));
        }
      });
    }
  }
}
