package dev.quartermaster.agent.health;

import dev.quartermaster.api.device.Device;
import java.time.Instant;
import java.util.Objects;

/**
 * One device's health: {@link Healthy}, {@link Unhealthy} with the reason and since when, or {@link
 * Unknown} with why (monitoring never started or failed: no new allocations, fail closed).
 */
public sealed interface DeviceHealth {

  record Healthy() implements DeviceHealth {}

  record Unhealthy(String reason, Instant since) implements DeviceHealth {
    public Unhealthy {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(since, "since");
    }
  }

  record Unknown(String reason) implements DeviceHealth {
    public Unknown {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** {@code device} with this health and its reason, as published in the DeviceSlice. */
  default Device applyTo(Device device) {
    return switch (this) {
      case Healthy h ->
          new Device(
              device.name(), device.deviceClass(), device.attributes(), Device.Health.Healthy, "");
      case Unhealthy u ->
          new Device(
              device.name(),
              device.deviceClass(),
              device.attributes(),
              Device.Health.Unhealthy,
              u.reason() + " (since " + u.since() + ")");
      case Unknown u ->
          new Device(
              device.name(),
              device.deviceClass(),
              device.attributes(),
              Device.Health.Unknown,
              u.reason());
    };
  }

  /** Whether new work may be placed on the device. */
  default boolean allocatable() {
    return this instanceof Healthy;
  }
}
