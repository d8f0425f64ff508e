package dev.quartermaster.api.device;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * One device on a node.
 *
 * @param name unique on its node, e.g. {@code gpu-0}; becomes part of CDI device names
 * @param deviceClass {@code gpu} or {@code channel}
 * @param attributes e.g. uuid, model, memory (bytes), minor
 * @param healthReason why the device is not healthy, e.g. "XID 79 at 2026-11-22T03:00:00Z"
 * @param consumesCounters what the device takes of its slice's shared counters while held; none
 *     (the default): it shares nothing, and only its own holding excludes it (a whole GPU, a
 *     channel)
 */
public record Device(
    String name,
    @JsonProperty("class") String deviceClass,
    Map<String, String> attributes,
    Health health,
    String healthReason,
    List<CounterConsumption> consumesCounters) {

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
    consumesCounters = consumesCounters == null ? List.of() : List.copyOf(consumesCounters);
  }

  /** A device that shares no counters: a whole GPU, a channel. */
  public Device(
      String name,
      String deviceClass,
      Map<String, String> attributes,
      Health health,
      String healthReason) {
    this(name, deviceClass, attributes, health, healthReason, List.of());
  }
}
