package dev.quartermaster.api.device.use;

import dev.quartermaster.api.device.mps.MpsCapacity;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.use.Clash.Overload;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What the shares held on one MPS GPU take, summed. */
final class ShareLoad<H> {
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
      over = new Overload(new Counter(template, "compute-percent"), compute, cap.computePercent());
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
