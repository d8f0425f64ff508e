package dev.quartermaster.api.device;

import java.util.List;

/**
 * @param node the node whose devices these are
 * @param sharedCounters the counter sets its devices consume ({@link Device#consumesCounters});
 *     none (the default): no device shares anything with another
 */
public record DeviceSliceSpec(String node, List<Device> devices, List<CounterSet> sharedCounters) {
  public static final DeviceSliceSpec EMPTY = new DeviceSliceSpec("", List.of());

  public DeviceSliceSpec {
    node = node == null ? "" : node;
    devices = devices == null ? List.of() : List.copyOf(devices);
    sharedCounters = sharedCounters == null ? List.of() : List.copyOf(sharedCounters);
  }

  /** A slice whose devices share no counters. */
  public DeviceSliceSpec(String node, List<Device> devices) {
    this(node, devices, List.of());
  }

  /** Whether any device of the slice consumes shared counters, or the slice declares some. */
  public boolean sharesCounters() {
    return !sharedCounters.isEmpty()
        || devices.stream().anyMatch(d -> !d.consumesCounters().isEmpty());
  }
}
