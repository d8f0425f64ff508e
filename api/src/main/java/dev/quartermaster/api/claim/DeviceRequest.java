package dev.quartermaster.api.claim;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.quartermaster.api.device.DeviceSelector;
import java.util.List;

/**
 * @param name unique within the claim; allocations refer to it
 * @param deviceClassName the {@code DeviceClass} whose selectors a device must match
 * @param count how many devices (at least 1)
 * @param selectors further conditions, on top of the class's
 */
public record DeviceRequest(
    String name,
    String deviceClassName,
    @JsonProperty(required = true) int count,
    List<DeviceSelector> selectors) {
  public DeviceRequest {
    name = name == null ? "" : name;
    deviceClassName = deviceClassName == null ? "" : deviceClassName;
    selectors = selectors == null ? List.of() : List.copyOf(selectors);
  }
}
