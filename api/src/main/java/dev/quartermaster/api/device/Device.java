package dev.quartermaster.api.device;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * One device on a node.
 *
 * @param name unique on its node, e.g. {@code gpu-0}; becomes part of CDI device names
 * @param deviceClass {@code gpu} or {@code channel}
 * @param attributes e.g. uuid, model, memory (bytes), minor
 * @param healthReason why the device is not healthy, e.g. "XID 79 at 2026-11-22T03:00:00Z"
 */
public record Device(
    String name,
    @JsonProperty("class") String deviceClass,
    Map<String, String> attributes,
    Health health,
    String healthReason) {

  public enum Health {
    Healthy,
    Unhealthy,
    Unknown
  }

  public Device {
    name = name == null ? "" : name;
    deviceClass = deviceClass == null ? "" : deviceClass;
    attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    health = health == null ? Health.Unknown : health;
    healthReason = healthReason == null ? "" : healthReason;
  }
}
