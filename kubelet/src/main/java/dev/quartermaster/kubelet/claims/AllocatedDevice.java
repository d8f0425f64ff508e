package dev.quartermaster.kubelet.claims;

import java.util.List;
import java.util.Objects;

/**
 * One device the scheduler allocated to a claim for this driver: the pool and device it names in
 * the ResourceSlice, and the requests of the claim it serves (empty: all of them).
 */
public record AllocatedDevice(String pool, String device, List<String> requestNames) {
  public AllocatedDevice {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    requestNames = List.copyOf(requestNames);
  }
}
