package dev.quartermaster.kubelet.prepare;

import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.kubelet.claims.AllocatedDevice;
import dev.quartermaster.kubelet.claims.KubeClaim;
import java.util.Set;

/**
 * The ledger name of an MPS share the scheduler allocated: the scheduler records a share as the MPS
 * device ({@code gpu-0-mps}), a {@code shareID} and what it consumes; the ledger, as everywhere in
 * Quartermaster, records it under a name that carries its size ({@code gpu-0-mps-50pct-20gib-0}),
 * so the ledger judges the sum of the GPU's shares as the store and the allocator do ({@link
 * dev.quartermaster.api.device.use.DeviceUse}).
 *
 * <p>The number tells apart shares of one size on one GPU: the one this claim's entry already
 * records (a repeated prepare must name the same devices), else the lowest that no claim holds. Two
 * prepares choosing the same number at once are told apart by the ledger, which gives the name to
 * one and makes the other wait; the kubelet's retry chooses again.
 *
 * <p>What the scheduler consumed must be a share the request policy allows (compute a multiple of
 * {@value MpsShares#COMPUTE_STEP} percent up to 100, memory whole GiB): anything else is refused,
 * never rounded here, since the scheduler's sum would then differ from the ledger's.
 */
sealed interface ShareNames {
  record Named(String name) implements ShareNames {}

  record Refused(String reason) implements ShareNames {}

  static ShareNames of(
      KubeClaim claim, AllocatedDevice device, Set<String> chosen, ClaimPreparer preparer) {
    var what = "claim " + claim + ": device " + device.device();
    var gpu = MpsShares.gpuOfTemplate(device.device());
    if (gpu.isEmpty()) {
      return new Refused(what + " is allocated as a share, but only an MPS device is shared");
    }
    if (device.share().isEmpty()) {
      return new Refused(
          what + " is an MPS device allocated without a share (no consumedCapacity)");
    }
    var consumed = device.share().get();
    long compute = consumed.compute();
    if (compute < MpsShares.COMPUTE_STEP
        || compute > 100
        || compute % MpsShares.COMPUTE_STEP != 0) {
      return new Refused(
          what
              + ": consumedCapacity compute="
              + compute
              + " is not a multiple of "
              + MpsShares.COMPUTE_STEP
              + " from "
              + MpsShares.COMPUTE_STEP
              + " to 100 (the device's request policy)");
    }
    long memory = consumed.memoryBytes();
    if (memory < MpsShares.GIB || memory % MpsShares.GIB != 0) {
      return new Refused(
          what
              + ": consumedCapacity memory="
              + memory
              + " bytes is not a whole number of GiB, at least 1 (the device's request policy)");
    }
    int gib = (int) Math.min(Integer.MAX_VALUE, memory / MpsShares.GIB);
    var ledger = preparer.durable().ledger();
    var recorded =
        ledger.entry(claim.uid()).stream()
            .flatMap(e -> e.devices().stream())
            .filter(d -> !chosen.contains(d))
            .filter(
                d ->
                    MpsShares.parse(d)
                        .filter(
                            s ->
                                s.gpu().equals(gpu.get())
                                    && s.computePercent() == compute
                                    && s.memoryGiB() == gib)
                        .isPresent())
            .findFirst();
    if (recorded.isPresent()) {
      return new Named(recorded.get());
    }
    var held = preparer.heldDevices().keySet();
    for (int i = 0; ; i++) {
      var name = new MpsShare(gpu.get(), (int) compute, gib, i).name();
      if (!held.contains(name) && !chosen.contains(name)) {
        return new Named(name);
      }
    }
  }
}
