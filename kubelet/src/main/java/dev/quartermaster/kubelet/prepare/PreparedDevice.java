package dev.quartermaster.kubelet.prepare;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A device of a prepared claim as the kubelet is told of it, with the CDI ids it gets: the device
 * as the scheduler allocated it ({@code gpu-1-mps}, not the ledger's share name) and, for a share,
 * the allocation's {@code shareID}.
 */
public record PreparedDevice(
    String pool,
    String device,
    List<String> requestNames,
    List<String> cdiDeviceIds,
    Optional<String> shareId) {
  public PreparedDevice {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    requestNames = List.copyOf(requestNames);
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
    Objects.requireNonNull(shareId, "shareId");
  }

  /** A device prepared whole. */
  public PreparedDevice(
      String pool, String device, List<String> requestNames, List<String> cdiDeviceIds) {
    this(pool, device, requestNames, cdiDeviceIds, Optional.empty());
  }
}
