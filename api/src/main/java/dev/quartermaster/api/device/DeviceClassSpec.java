package dev.quartermaster.api.device;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * @param deviceClass the device class it selects from ({@code gpu} or {@code channel})
 * @param selectors every selector must hold for a device to match
 */
public record DeviceClassSpec(
    @JsonProperty("class") String deviceClass, List<DeviceSelector> selectors) {
  public static final DeviceClassSpec EMPTY = new DeviceClassSpec("", List.of());

  public DeviceClassSpec {
    deviceClass = deviceClass == null ? "" : deviceClass;
    selectors = selectors == null ? List.of() : List.copyOf(selectors);
  }
}
