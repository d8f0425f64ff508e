package dev.quartermaster.agent.devices;

import dev.quartermaster.api.device.Device;
import java.util.Map;
import java.util.Objects;

/** One GPU found under the device root, and the node its containers need. */
public record Gpu(String name, String uuid, String model, long memoryBytes, int minor, DeviceNode node) {
  public static final String CLASS = "gpu";

  public Gpu {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(node, "node");
  }

  /** As published in the node's DeviceSlice. */
  public Device toDevice() {
    return new Device(name, CLASS, Map.of(
        "uuid", uuid,
        "model", model,
        "memory", Long.toString(memoryBytes),
        "minor", Integer.toString(minor)), Device.Health.Healthy, "");
  }
}
