package dev.quartermaster.api.allocation;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * @param devices device name → the claim holding it. A map keyed by device, so one device has at
 *     most one holder by construction, and an entry costs only its two names (a node may carry
 *     thousands: 2,048 IMEX channels).
 */
public record NodeAllocationSpec(Map<String, DeviceHolder> devices) {
  public static final NodeAllocationSpec EMPTY = new NodeAllocationSpec(Map.of());

  public NodeAllocationSpec {
    devices = devices == null ? Map.of() : Map.copyOf(devices);
  }

  public Optional<DeviceHolder> holder(String device) {
    return Optional.ofNullable(devices.get(device));
  }

  /** This record with {@code add} recorded (replacing what those devices had). */
  public NodeAllocationSpec with(Map<String, DeviceHolder> add) {
    var next = new HashMap<>(devices);
    next.putAll(add);
    return new NodeAllocationSpec(next);
  }

  /** This record without the entries of {@code remove}. */
  public NodeAllocationSpec without(Set<String> remove) {
    var next = new HashMap<>(devices);
    next.keySet().removeAll(remove);
    return new NodeAllocationSpec(next);
  }
}
