package dev.quartermaster.api.device.use;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mps.MpsCapacity;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.use.Clash.Overload;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the devices of one node consume while held, and so which holdings exclude each other: the
 * one answer to "is this device free" (see the package comment). Immutable; {@link #WHOLE_DEVICES}
 * for a node whose devices declare no counters, where every question is one lookup.
 */
public final class DeviceUse {
  /** Every device its own counter: a node of whole GPUs and channels. */
  public static final DeviceUse WHOLE_DEVICES =
      new DeviceUse(Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), new MpsUse(Map.of()));

  /** One device's draw on one shared counter. */
  private record Draw(Counter counter, String device, long amount) {}

  /** Device → its draws on shared counters; absent: none (its own counter only). */
  private final Map<String, List<Draw>> draws;

  /** Shared counter → how much there is. */
  private final Map<Counter, Long> capacity;

  /** Shared counter → the draws on it, in device-name order. */
  private final Map<Counter, List<Draw>> drawers;

  /** A published part (a MIG slice, a time-sliced replica) → the device it is part of. */
  private final Map<String, String> parents;

  /** A device → its published parts, in name order. */
  private final Map<String, List<String>> parts;

  /** The MPS-shared GPUs and what their shares may take. */
  private final MpsUse mps;

  private DeviceUse(
      Map<String, List<Draw>> draws,
      Map<Counter, Long> capacity,
      Map<Counter, List<Draw>> drawers,
      Map<String, String> parents,
      Map<String, List<String>> parts,
      MpsUse mps) {
    this.draws = draws;
    this.capacity = capacity;
    this.drawers = drawers;
    this.parents = parents;
    this.parts = parts;
    this.mps = mps;
  }

  /** The use of one node's devices as its slices publish them. */
  public static DeviceUse of(DeviceSliceSpec slice) {
    return of(List.of(slice));
  }

  /**
   * The use of one node's devices as its slices publish them. A counter a device names and no slice
   * declares has nothing of it (validation refuses such slices; this stays safe without).
   */
  public static DeviceUse of(Collection<DeviceSliceSpec> slices) {
    if (slices.stream()
        .noneMatch(
            s ->
                s.sharesCounters()
                    || s.devices().stream().anyMatch(d -> Parts.parentOf(d).isPresent()))) {
      return WHOLE_DEVICES;
    }
    var capacity = new HashMap<Counter, Long>();
    for (var s : slices) {
      for (var set : s.sharedCounters()) {
        set.counters().forEach((c, n) -> capacity.putIfAbsent(new Counter(set.name(), c), n));
      }
    }
    var draws = new HashMap<String, List<Draw>>();
    var drawers =
        new TreeMap<Counter, List<Draw>>(
            java.util.Comparator.comparing(Counter::set).thenComparing(Counter::name));
    var devices = new TreeMap<String, Device>();
    slices.forEach(s -> s.devices().forEach(d -> devices.putIfAbsent(d.name(), d)));
    var parents = new HashMap<String, String>();
    var parts = new TreeMap<String, List<String>>();
    var mps = new HashMap<String, MpsCapacity>();
    for (var d : devices.values()) {
      if (MpsShares.isTemplate(d)) {
        mps.put(MpsShares.gpuOfTemplate(d.name()).orElseThrow(), MpsShares.capacity(d));
      }
      Parts.parentOf(d)
          .ifPresent(
              p -> {
                parents.put(d.name(), p);
                parts.computeIfAbsent(p, k -> new ArrayList<>()).add(d.name());
              });
    }
    for (var d : devices.values()) {
      var mine = new ArrayList<Draw>();
      for (var c : d.consumesCounters()) {
        c.counters()
            .forEach(
                (name, n) -> mine.add(new Draw(new Counter(c.counterSet(), name), d.name(), n)));
      }
      if (mine.isEmpty()) {
        continue;
      }
      draws.put(d.name(), List.copyOf(mine));
      mine.forEach(w -> drawers.computeIfAbsent(w.counter(), k -> new ArrayList<>()).add(w));
      mine.forEach(w -> capacity.putIfAbsent(w.counter(), 0L));
    }
    var fixed = new java.util.LinkedHashMap<Counter, List<Draw>>();
    drawers.forEach((k, v) -> fixed.put(k, List.copyOf(v)));
    var fixedParts = new HashMap<String, List<String>>();
    parts.forEach((k, v) -> fixedParts.put(k, List.copyOf(v)));
    return new DeviceUse(
        Map.copyOf(draws),
        Map.copyOf(capacity),
        fixed,
        Map.copyOf(parents),
        Map.copyOf(fixedParts),
        new MpsUse(Map.copyOf(mps)));
  }

  /**
   * Whether some device consumes shared counters or is part of another (else each is only its own,
   * and a judgement depends on nothing the slice says).
   */
  public boolean sharesCounters() {
    return !draws.isEmpty() || !parents.isEmpty();
  }

  /** The device {@code device} is part of, as published, else as its name says. */
  private Optional<String> parentOf(String device) {
    var p = parents.get(device);
    return p != null ? Optional.of(p) : Parts.parentByName(device);
  }

  /**
   * A holder other than {@code holder} of the whole {@code device} is part of, or of a published
   * part of {@code device}: a part and its whole are one GPU, never held by two claims.
   */
  private <H> Optional<Holding<H>> wholeOrPartHeld(String device, H holder, Holders<H> held) {
    var parent = parentOf(device);
    if (parent.isPresent()) {
      var h = held.holderOf(parent.get());
      if (h.isPresent() && !h.get().equals(holder)) {
        return Optional.of(new Holding<>(parent.get(), h.get()));
      }
    }
    for (var part : parts.getOrDefault(device, List.of())) {
      var h = held.holderOf(part);
      if (h.isPresent() && !h.get().equals(holder)) {
        return Optional.of(new Holding<>(part, h.get()));
      }
    }
    return Optional.empty();
  }

  /**
   * (a) Whether {@code device} may be taken now: no one holds it, and each shared counter it
   * consumes has enough left after what the held devices consume.
   */
  @SuppressWarnings("unchecked") // only read, and compared with a holder of no caller's
  public boolean isFree(String device, Holders<?> held) {
    if (held.holds(device)) {
      return false;
    }
    if (device.contains("-mps") || !mps.mps().isEmpty()) {
      var clash = mps.clash(device, NO_ONE, (Holders<Object>) held);
      if (clash.isPresent()) {
        return clash.get().isEmpty();
      }
    }
    if (!parents.isEmpty()) {
      var parent = parents.get(device);
      if (parent != null && held.holds(parent)) {
        return false;
      }
      for (var part : parts.getOrDefault(device, List.of())) {
        if (held.holds(part)) {
          return false;
        }
      }
    }
    var mine = draws.get(device);
    if (mine == null) {
      return true;
    }
    for (var w : mine) {
      long load = w.amount();
      for (var other : drawers.get(w.counter())) {
        if (held.holds(other.device())) {
          load += other.amount();
        }
      }
      if (load > capacity.get(w.counter())) {
        return false;
      }
    }
    return true;
  }

  /**
   * (b) The devices that taking {@code device} excludes, itself first: those that cannot be held
   * beside it even on an otherwise idle node. A whole GPU excludes each of its slices and each
   * slice the whole GPU; two {@code 1g} slices exclude neither.
   */
  public Set<String> excludes(String device) {
    var out = new LinkedHashSet<String>();
    out.add(device);
    var parent = parents.get(device);
    if (parent != null) {
      out.add(parent);
    }
    MpsShares.parse(device)
        .ifPresent(s -> out.addAll(List.of(s.gpu(), MpsShares.template(s.gpu()))));
    out.addAll(parts.getOrDefault(device, List.of()));
    for (var w : draws.getOrDefault(device, List.of())) {
      for (var other : drawers.get(w.counter())) {
        if (!other.device().equals(device)
            && w.amount() + other.amount() > capacity.get(w.counter())) {
          out.add(other.device());
        }
      }
    }
    return out;
  }

  /**
   * (c), for one more holding: why {@code holder} may not hold {@code device} beside {@code held},
   * or empty if it may. {@code device} held already by {@code holder} itself is that same holding,
   * counted once.
   */
  public <H> Optional<Clash<H>> clash(String device, H holder, Holders<H> held) {
    var own = held.holderOf(device);
    if (own.isPresent() && !own.get().equals(holder)) {
      return Optional.of(new Clash<>(device, holder, device, own.get(), Optional.empty()));
    }
    if (device.contains("-mps") || !mps.mps().isEmpty()) {
      var clash = mps.clash(device, holder, held);
      if (clash.isPresent()) {
        return clash.get();
      }
    }
    if (!parents.isEmpty()) {
      var whole = wholeOrPartHeld(device, holder, held);
      if (whole.isPresent()) {
        return Optional.of(
            new Clash<>(
                device, holder, whole.get().device(), whole.get().holder(), Optional.empty()));
      }
    }
    var mine = draws.get(device);
    if (mine == null) {
      return Optional.empty();
    }
    for (var w : mine) {
      long load = w.amount();
      Optional<Holding<H>> first = Optional.empty();
      for (var other : drawers.get(w.counter())) {
        if (other.device().equals(device)) {
          continue;
        }
        var h = held.holderOf(other.device());
        if (h.isPresent()) {
          load += other.amount();
          if (first.isEmpty()) {
            first = Optional.of(new Holding<>(other.device(), h.get()));
          }
        }
      }
      long cap = capacity.get(w.counter());
      if (load > cap) {
        var by = first.orElse(new Holding<>(device, holder)); // it alone asks more than there is
        return Optional.of(
            new Clash<>(
                device,
                holder,
                by.device(),
                by.holder(),
                Optional.of(new Overload(w.counter(), load, cap))));
      }
    }
    return Optional.empty();
  }

  /**
   * A part held by one holder and its whole by another, in {@code byDevice} (device → holder), if
   * any, parts known as published or else by their names ({@link Parts}): the part of a GPU a mode
   * change left held beside the GPU offered whole again, which the slice no longer relates.
   * Stricter than {@link #overConsumed}, which knows only what the slice says; the store and the
   * ledger ask both.
   */
  public <H> Optional<Clash<H>> partWithWhole(Map<String, ? extends H> byDevice) {
    return partWithWhole(byDevice, this::parentOf);
  }

  private static <H> Optional<Clash<H>> partWithWhole(
      Map<String, ? extends H> byDevice,
      java.util.function.Function<String, Optional<String>> parentOf) {
    for (var e : byDevice.entrySet()) {
      var parent = parentOf.apply(e.getKey());
      if (parent.isEmpty()) {
        continue;
      }
      H whole = byDevice.get(parent.get());
      if (whole != null && !whole.equals(e.getValue())) {
        return Optional.of(
            new Clash<>(e.getKey(), e.getValue(), parent.get(), whole, Optional.empty()));
      }
    }
    return Optional.empty();
  }

  /**
   * (c) I1 over a whole node: the first counter that {@code holdings} over-consume, if any — a
   * device held by two holders (its own counter), or shared counters taken beyond what there is.
   * Equal holdings count once.
   */
  public <H> Optional<Clash<H>> overConsumed(Collection<Holding<H>> holdings) {
    var byDevice = new TreeMap<String, H>();
    for (var h : holdings) {
      var was = byDevice.putIfAbsent(h.device(), h.holder());
      if (was != null && !was.equals(h.holder())) {
        return Optional.of(new Clash<>(h.device(), h.holder(), h.device(), was, Optional.empty()));
      }
    }
    if (!parents.isEmpty() || byDevice.keySet().stream().anyMatch(d -> d.contains("-mps-"))) {
      var parted =
          partWithWhole(
              byDevice,
              d ->
                  Optional.ofNullable(parents.get(d))
                      .or(() -> MpsShares.parse(d).map(MpsShare::gpu)));
      if (parted.isPresent()) {
        return parted;
      }
      var shares = mps.overConsumed(byDevice);
      if (shares.isPresent()) {
        return shares;
      }
    }
    for (var e : drawers.entrySet()) {
      long load = 0;
      Optional<Holding<H>> first = Optional.empty();
      for (var w : e.getValue()) {
        var h = byDevice.get(w.device());
        if (h == null) {
          continue;
        }
        load += w.amount();
        long cap = capacity.get(e.getKey());
        if (load > cap) {
          var by = first.orElse(new Holding<>(w.device(), h));
          return Optional.of(
              new Clash<>(
                  w.device(),
                  h,
                  by.device(),
                  by.holder(),
                  Optional.of(new Overload(e.getKey(), load, cap))));
        }
        if (first.isEmpty()) {
          first = Optional.of(new Holding<>(w.device(), h));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * How many more shares MPS device {@code template} could take beside {@code held}, at most
   * ({@link MpsUse#sharesLeft}); 0 for any other device.
   */
  public int sharesLeft(String template, Holders<?> held) {
    return mps.sharesLeft(template, held);
  }

  /** A holder no caller has: {@link #isFree} asks as if for a claim that holds nothing. */
  private static final Object NO_ONE = new Object();
}
