package dev.quartermaster.kubelet.claims;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One device the scheduler allocated to a claim for this driver: the pool and device it names in
 * the ResourceSlice, the requests of the claim it serves (empty: all of them), and, for a device
 * allocated many times over (an MPS GPU, KEP-5075), the share this allocation consumes.
 */
public record AllocatedDevice(
    String pool, String device, List<String> requestNames, Optional<ConsumedShare> share) {
  public AllocatedDevice {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    requestNames = List.copyOf(requestNames);
    Objects.requireNonNull(share, "share");
  }

  /** A device allocated whole. */
  public AllocatedDevice(String pool, String device, List<String> requestNames) {
    this(pool, device, requestNames, Optional.empty());
  }
}
