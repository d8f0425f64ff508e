package dev.quartermaster.kubelet.claims;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What a {@link ClaimSource} knows of a claim's allocation. */
public sealed interface ClaimAllocation {

  /**
   * The claim is allocated; {@code devices} are this driver's, in allocation order, and {@code
   * computeDomain} the domain its opaque configuration asks the node to join while it is prepared.
   */
  record Allocated(List<AllocatedDevice> devices, Optional<String> computeDomain)
      implements ClaimAllocation {
    public Allocated {
      devices = List.copyOf(devices);
      Objects.requireNonNull(computeDomain, "computeDomain");
    }

    /** Devices without a compute domain. */
    public Allocated(List<AllocatedDevice> devices) {
      this(devices, Optional.empty());
    }
  }

  /**
   * The claim cannot be prepared now: not found, not allocated, replaced by one with another uid,
   * or the source could not be asked. The kubelet retries; {@code reason} is its error.
   */
  record Unavailable(String reason) implements ClaimAllocation {
    public Unavailable {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
