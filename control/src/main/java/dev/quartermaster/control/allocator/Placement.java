package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import java.util.List;
import java.util.Map;

/** The outcome of looking for a node where a set of claims fits. */
public sealed interface Placement {

  /** All claims fit on {@code node}: per claim name, its devices there. */
  record Placed(String node, Map<String, List<AllocatedDevice>> devices) implements Placement {
    public Placed {
      devices = Map.copyOf(devices);
    }
  }

  /** A request names a device class that does not exist. */
  record NoSuchDeviceClass(String message) implements Placement {}

  /** No node could ever hold the request, even empty and healthy. */
  record Unsatisfiable(String message) implements Placement {}

  /** Some node could, but none ready has enough free healthy devices now. */
  record Waiting(String message) implements Placement {}

  /**
   * The claims fit only on {@code node}, to which another worker's placement is being committed:
   * picking its devices now would race that commit for the node's record (the same best-fit
   * devices, or the record's compare-and-set) and lose. The caller is woken when that commit ends.
   */
  record Busy(String node) implements Placement {}
}
