package dev.quartermaster.agent.discovery;

import dev.quartermaster.api.device.Device;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One usable GPU: what discovery read, and its device node as checked on the host.
 *
 * @param name {@code gpu-<index>}, the device's name in the node's DeviceSlice and in CDI names
 */
public record DiscoveredGpu(
    String name,
    int index,
    String uuid,
    String model,
    OptionalLong memoryBytes,
    int minor,
    String pciBusId,
    VerifiedNode node) {
  public static final String CLASS = "gpu";

  public DiscoveredGpu {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(memoryBytes, "memoryBytes");
    Objects.requireNonNull(pciBusId, "pciBusId");
    Objects.requireNonNull(node, "node");
  }

  static DiscoveredGpu of(GpuInfo info, VerifiedNode node) {
    return new DiscoveredGpu(
        "gpu-" + info.index(),
        info.index(),
        info.uuid(),
        info.model(),
        info.memoryBytes(),
        info.minor(),
        info.pciBusId(),
        node);
  }

  /**
   * As published in the node's DeviceSlice: class {@code gpu}, attributes uuid, model, memory
   * (bytes; left out when unknown) and minor. Health is {@code Unknown} here: it is the health
   * tracker's to say.
   */
  public Device toDevice() {
    var attributes = new LinkedHashMap<String, String>();
    attributes.put("uuid", uuid);
    attributes.put("model", model);
    memoryBytes.ifPresent(m -> attributes.put("memory", Long.toString(m)));
    attributes.put("minor", Integer.toString(minor));
    return new Device(name, CLASS, attributes, Device.Health.Unknown, "health not yet known");
  }
}
