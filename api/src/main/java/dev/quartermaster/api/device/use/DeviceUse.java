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
      new DeviceUse(Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of());

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

  /** An MPS-shared GPU → what its shares may take, all told. */
  private final Map<String, MpsCapacity> mps;

  private DeviceUse(
      Map<String, List<Draw>> draws,
      Map<Counter, Long> capacity,
      Map<Counter, List<Draw>> drawers,
      Map<String, String> parents,
      Map<String, List<String>> parts,
      Map<String, MpsCapacity> mps) {
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
        Map.copyOf(mps));
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
    if (device.contains("-mps") || !mps.isEmpty()) {
      var clash = mpsClash(device, NO_ONE, (Holders<Object>) held);
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
    if (device.contains("-mps") || !mps.isEmpty()) {
      var clash = mpsClash(device, holder, held);
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
      var shares = sharesOverConsumed(byDevice);
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
   * How many more shares MPS device {@code template} could take beside {@code held}, at most: as
   * many as the smallest share ({@link MpsShares#COMPUTE_STEP} percent, 1 GiB) fit in what is left,
   * and no more than its clients allow; 0 for any other device or a GPU held whole.
   */
  public int sharesLeft(String template, Holders<?> held) {
    var gpu = MpsShares.gpuOfTemplate(template).filter(mps::containsKey);
    if (gpu.isEmpty() || held.holds(gpu.get()) || held.holds(template)) {
      return 0;
    }
    var cap = mps.get(gpu.get());
    long[] used = new long[3]; // compute, memory, clients
    held.forEach(
        (d, h) ->
            MpsShares.parse(d)
                .filter(s -> s.gpu().equals(gpu.get()))
                .ifPresent(
                    s -> {
                      used[0] += s.computePercent();
                      used[1] += s.memoryGiB();
                      used[2]++;
                    }));
    long left =
        Math.min(
            (cap.computePercent() - used[0]) / MpsShares.COMPUTE_STEP,
            Math.min(cap.memoryGiB() - used[1], cap.clients() - used[2]));
    return (int) Math.max(0, left);
  }

  /** A holder no caller has: {@link #isFree} asks as if for a claim that holds nothing. */
  private static final Object NO_ONE = new Object();

  /**
   * The MPS part of {@link #clash}: empty if {@code device} is neither an MPS share, an MPS GPU's
   * device nor an MPS GPU; else whether {@code holder} may hold it beside {@code held}. A share may
   * not be held beside its GPU held whole by another (nor its GPU's device itself, which no claim
   * holds), and the shares held on a GPU may not take more compute, memory or clients than it
   * offers. The shares are found by reading every holding, since their names carry their sizes;
   * only a node with MPS GPUs pays for it.
   */
  private <H> Optional<Optional<Clash<H>>> mpsClash(String device, H holder, Holders<H> held) {
    var share = MpsShares.parse(device);
    if (share.isEmpty()) {
      var ofTemplate = MpsShares.gpuOfTemplate(device).filter(mps::containsKey);
      if (ofTemplate.isPresent()) {
        // An MPS GPU's device is a template for shares, never held itself.
        var never = new Overload(new Counter(device, "held-only-as-shares"), 1, 0);
        return Optional.of(
            Optional.of(new Clash<>(device, holder, device, holder, Optional.of(never))));
      }
      if (!mps.containsKey(device)) {
        return Optional.empty();
      }
      // The GPU itself, asked whole: not beside a share of it.
      var first = new java.util.ArrayList<Holding<H>>(1);
      held.forEach(
          (d, h) -> {
            if (first.isEmpty()
                && !h.equals(holder)
                && MpsShares.parse(d).map(MpsShare::gpu).filter(device::equals).isPresent()) {
              first.add(new Holding<>(d, h));
            }
          });
      return Optional.of(
          first.stream()
              .findFirst()
              .map(
                  b ->
                      new Clash<>(
                          device, holder, b.device(), b.holder(), Optional.<Overload>empty())));
    }
    var gpu = share.get().gpu();
    for (var whole : List.of(gpu, MpsShares.template(gpu))) {
      var h = held.holderOf(whole);
      if (h.isPresent() && !h.get().equals(holder)) {
        return Optional.of(
            Optional.of(new Clash<>(device, holder, whole, h.get(), Optional.empty())));
      }
    }
    var load = new ShareLoad(gpu);
    load.add(device, holder, share.get());
    held.forEach(
        (d, h) -> {
          if (!d.equals(device)) {
            MpsShares.parse(d).filter(s -> s.gpu().equals(gpu)).ifPresent(s -> load.add(d, h, s));
          }
        });
    return Optional.of(load.over(device, holder, mps.getOrDefault(gpu, MpsCapacity.UNKNOWN)));
  }

  /** The first MPS GPU whose shares in {@code byDevice} take more than it offers, if any. */
  private <H> Optional<Clash<H>> sharesOverConsumed(Map<String, H> byDevice) {
    var loads = new TreeMap<String, ShareLoad<H>>();
    byDevice.forEach(
        (d, h) ->
            MpsShares.parse(d)
                .ifPresent(s -> loads.computeIfAbsent(s.gpu(), ShareLoad::new).add(d, h, s)));
    for (var e : byDevice.entrySet()) {
      var gpu = MpsShares.gpuOfTemplate(e.getKey()).filter(mps::containsKey);
      if (gpu.isPresent()) {
        var never = new Overload(new Counter(e.getKey(), "held-only-as-shares"), 1, 0);
        return Optional.of(
            new Clash<>(e.getKey(), e.getValue(), e.getKey(), e.getValue(), Optional.of(never)));
      }
    }
    for (var load : loads.values()) {
      var first = load.holdings.getFirst();
      var over =
          load.over(
              first.device(), first.holder(), mps.getOrDefault(load.gpu, MpsCapacity.UNKNOWN));
      if (over.isPresent()) {
        return over;
      }
    }
    return Optional.empty();
  }

  /** What the shares held on one MPS GPU take, summed. */
  private static final class ShareLoad<H> {
    final String gpu;
    final List<Holding<H>> holdings = new ArrayList<>();
    long compute;
    long memory;

    ShareLoad(String gpu) {
      this.gpu = gpu;
    }

    void add(String device, H holder, MpsShare share) {
      holdings.add(new Holding<>(device, holder));
      compute += share.computePercent();
      memory += share.memoryGiB();
    }

    /** Whether the sum passes {@code cap}, said as {@code device}'s clash with the first other. */
    Optional<Clash<H>> over(String device, H holder, MpsCapacity cap) {
      var template = MpsShares.template(gpu);
      Overload over = null;
      if (compute > cap.computePercent()) {
        over =
            new Overload(new Counter(template, "compute-percent"), compute, cap.computePercent());
      } else if (memory > cap.memoryGiB()) {
        over = new Overload(new Counter(template, "memory-gib"), memory, cap.memoryGiB());
      } else if (holdings.size() > cap.clients()) {
        over = new Overload(new Counter(template, "clients"), holdings.size(), cap.clients());
      }
      if (over == null) {
        return Optional.empty();
      }
      var by =
          holdings.stream()
              .filter(h -> !h.device().equals(device))
              .findFirst()
              .orElse(new Holding<>(device, holder));
      return Optional.of(new Clash<>(device, holder, by.device(), by.holder(), Optional.of(over)));
    }
  }
}
