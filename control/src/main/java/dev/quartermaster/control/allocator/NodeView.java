package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Holders;
import dev.quartermaster.api.node.Node;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One node as the {@link DeviceIndex} sees it.
 *
 * @param notReady why the node takes no allocations (empty: it does)
 * @param held the node's allocation record: device → the holder's claim uid
 * @param sources the revisions it was built from
 * @param labels the node's labels (its place in the topology among them)
 * @param use what its devices consume while held: which holdings exclude each other
 */
record NodeView(
    String name,
    Optional<String> notReady,
    List<Device> devices,
    Map<String, String> held,
    NodeView.Sources sources,
    Map<String, String> labels,
    DeviceUse use) {

  NodeView(
      String name,
      Optional<String> notReady,
      List<Device> devices,
      Map<String, String> held,
      NodeView.Sources sources) {
    this(name, notReady, devices, held, sources, Map.of(), DeviceUse.WHOLE_DEVICES);
  }

  NodeView(
      String name,
      Optional<String> notReady,
      List<Device> devices,
      Map<String, String> held,
      NodeView.Sources sources,
      Map<String, String> labels) {
    this(name, notReady, devices, held, sources, labels, DeviceUse.WHOLE_DEVICES);
  }

  /** This view with {@code held} as its holdings instead. */
  NodeView holding(Map<String, String> held) {
    return new NodeView(name, notReady, devices, held, sources, labels, use);
  }

  boolean schedulable() {
    return notReady.isEmpty();
  }

  /** Whether {@code d} may be handed out now: healthy and free by the node's device use. */
  boolean isFree(Device d) {
    return d.health() == Device.Health.Healthy && use.isFree(d.name(), Holders.of(held));
  }

  /**
   * As {@link #isFree(Device)}, with {@code taken} and {@code taking} held too (devices a decision
   * has handed out on this node already).
   */
  boolean isFree(Device d, Set<String> taken, Set<String> taking) {
    return d.health() == Device.Health.Healthy
        && use.isFree(
            d.name(),
            Holders.of(held)
                .or(Holders.all(taken, HeadReservation.HOLDER))
                .or(Holders.all(taking, HeadReservation.HOLDER)));
  }

  /**
   * What a fit on this view may take, with {@code taken} held too: {@link #isFree(Device, Set,
   * Set)}, and held what its record, {@code taken} or the fit's takings hold.
   */
  DeviceFit.FreeTest freeTest(Set<String> taken) {
    return new DeviceFit.FreeTest() {
      @Override
      public boolean isFree(Device d, Set<String> taking) {
        return NodeView.this.isFree(d, taken, taking);
      }

      @Override
      public boolean isHeld(String device, Set<String> taking) {
        return held.containsKey(device) || taken.contains(device) || taking.contains(device);
      }
    };
  }

  /**
   * This view with {@code devices} held too (reserved for another, so not free to the decision at
   * hand); this view itself when there are none.
   */
  NodeView closing(java.util.Set<String> devices) {
    if (devices.isEmpty()) {
      return this;
    }
    var more = new java.util.HashMap<>(held);
    devices.forEach(d -> more.putIfAbsent(d, HeadReservation.HOLDER));
    return holding(Map.copyOf(more));
  }

  /**
   * How many devices of {@code baseClass} a decision could still take here; an MPS GPU's device
   * counts as many shares as the smallest would still fit ({@link DeviceUse#sharesLeft}), an upper
   * bound that the fit itself settles.
   */
  int free(String baseClass) {
    return free(baseClass, Set.of());
  }

  /** As {@link #free(String)}, with {@code taken} held too (by a decision on this node so far). */
  int free(String baseClass, Set<String> taken) {
    var holders =
        taken.isEmpty()
            ? Holders.of(held)
            : Holders.of(held).or(Holders.all(taken, HeadReservation.HOLDER));
    int n = 0;
    for (var d : devices) {
      if (!d.deviceClass().equals(baseClass) || d.health() != Device.Health.Healthy) {
        continue;
      }
      if (MpsShares.isTemplate(d)) {
        n += use.sharesLeft(d.name(), holders);
      } else if (use.isFree(d.name(), holders)) {
        n++;
      }
    }
    return n;
  }

  /**
   * The revisions of the node object, its record and its slices (0: absent) that a view was built
   * from: the same again means the same view. Each allocation reaches the index twice, from our own
   * write and then from the informer's event of that same write; the second need not rebuild the
   * node. An object never stored (revision 0, as in tests) makes it unknown.
   */
  record Sources(long node, long record, List<Long> slices, boolean known) {
    static Sources of(
        Optional<Node> node, Optional<NodeAllocation> record, List<DeviceSlice> slices) {
      long n = node.map(x -> x.metadata().revision()).orElse(0L);
      long r = record.map(x -> x.metadata().revision()).orElse(0L);
      var s = slices.stream().map(x -> x.metadata().revision()).sorted().toList();
      boolean known =
          (node.isEmpty() || n > 0)
              && (record.isEmpty() || r > 0)
              && s.stream().allMatch(x -> x > 0);
      return new Sources(n, r, s, known);
    }

    boolean same(Sources other) {
      return known && equals(other);
    }
  }
}
