package dev.quartermaster.api.device.use;

import dev.quartermaster.api.device.mps.MpsCapacity;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.use.Clash.Overload;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The MPS part of a node's {@link DeviceUse}: its MPS GPUs and what their shares may take, and the
 * sums of the shares held on each (found by reading the holdings, since a share's name carries its
 * size: {@link MpsShares}).
 *
 * @param mps an MPS-shared GPU → what its shares may take, all told
 */
record MpsUse(Map<String, MpsCapacity> mps) {
  /**
   * How many more shares MPS device {@code template} could take beside {@code held}, at most: as
   * many as the smallest share ({@link MpsShares#COMPUTE_STEP} percent, 1 GiB) fit in what is left,
   * and no more than its clients allow; 0 for any other device or a GPU held whole.
   */
  int sharesLeft(String template, Holders<?> held) {
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

  /**
   * The MPS part of {@link DeviceUse#clash}: empty if {@code device} is neither an MPS share, an
   * MPS GPU's device nor an MPS GPU; else whether {@code holder} may hold it beside {@code held}. A
   * share may not be held beside its GPU held whole by another (nor its GPU's device itself, which
   * no claim holds), and the shares held on a GPU may not take more compute, memory or clients than
   * it offers. The shares are found by reading every holding, since their names carry their sizes;
   * only a node with MPS GPUs pays for it.
   */
  <H> Optional<Optional<Clash<H>>> clash(String device, H holder, Holders<H> held) {
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
  <H> Optional<Clash<H>> overConsumed(Map<String, H> byDevice) {
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
}
