package dev.quartermaster.agent.health;

import dev.quartermaster.api.device.Device;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

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

  /**
   * The health of a MIG slice of {@code parent} when the parent has this health and the slice
   * {@code own} (from an XID that named its GPU instance): an XID on the parent's handle that names
   * no instance is every slice's, and says so; one that named an instance is that slice's alone.
   */
  default DeviceHealth ofSlice(String parent, Optional<DeviceHealth> own) {
    return switch (this) {
      case Unhealthy u ->
          new Unhealthy(
              u.reason()
                  + " on "
                  + parent
                  + ", naming no GPU instance, so every slice of "
                  + parent
                  + " is affected",
              u.since());
      case Unknown u -> u;
      case Healthy h -> own.filter(o -> !(o instanceof Healthy)).orElse(h);
    };
  }

  /** Whether new work may be placed on the device. */
  default boolean allocatable() {
    return this instanceof Healthy;
  }
}
