package dev.quartermaster.api.claim;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.quartermaster.api.device.DeviceSelector;
import java.util.List;
import java.util.Optional;

/**
 * @param name unique within the claim; allocations refer to it
 * @param deviceClassName the {@code DeviceClass} whose selectors a device must match
 * @param count how many devices (at least 1)
 * @param selectors further conditions, on top of the class's
 * @param share how much of an MPS GPU each device is (requests of an {@code mps} class only)
 */
public record DeviceRequest(
    String name,
    String deviceClassName,
    @JsonProperty(required = true) int count,
    List<DeviceSelector> selectors,
    Optional<ShareRequest> share) {
  public DeviceRequest {
    name = name == null ? "" : name;
    deviceClassName = deviceClassName == null ? "" : deviceClassName;
    selectors = selectors == null ? List.of() : List.copyOf(selectors);
    share = share == null ? Optional.empty() : share;
  }

  /** A request of whole devices (or slices, or replicas): no share. */
  public DeviceRequest(
      String name, String deviceClassName, int count, List<DeviceSelector> selectors) {
    this(name, deviceClassName, count, selectors, Optional.empty());
  }
}
