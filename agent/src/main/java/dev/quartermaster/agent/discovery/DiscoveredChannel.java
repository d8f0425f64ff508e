package dev.quartermaster.agent.discovery;

import dev.quartermaster.api.device.Device;
import java.util.Map;
import java.util.Objects;

/**
 * One usable IMEX channel: {@code /dev/nvidia-caps-imex-channels/channel<id>}, checked on the host.
 *
 * @param name {@code channel-<id>}, the device's name in the node's DeviceSlice and in CDI names
 */
public record DiscoveredChannel(String name, int id, VerifiedNode node) {
  public static final String CLASS = "channel";

  public DiscoveredChannel {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(node, "node");
  }

  /** The device name of channel {@code id}: {@code channel-<id>}. */
  public static String nameOf(long id) {
    return "channel-" + id;
  }

  /**
   * As published in the node's DeviceSlice: class {@code channel}, no attributes (a node offers
   * 2,048 of them; the name says which one), Healthy: a channel has no health of its own beyond its
   * node, which discovery has just checked.
   */
  public Device toDevice() {
    return new Device(name, CLASS, Map.of(), Device.Health.Healthy, "");
  }
}
