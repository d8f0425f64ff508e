package dev.quartermaster.api.device;

import java.util.List;

/**
 * @param node the node whose devices these are
 */
public record DeviceSliceSpec(String node, List<Device> devices) {
  public static final DeviceSliceSpec EMPTY = new DeviceSliceSpec("", List.of());

  public DeviceSliceSpec {
    node = node == null ? "" : node;
    devices = devices == null ? List.of() : List.copyOf(devices);
  }
}
