package dev.quartermaster.api.claim;

import java.util.List;

/** Where a claim is bound: one node, and per request the devices there. */
public record Allocation(String node, List<AllocatedDevice> devices) {
  public Allocation {
    node = node == null ? "" : node;
    devices = devices == null ? List.of() : List.copyOf(devices);
  }

  /** Whether this allocation names {@code device} of {@code node}. */
  public boolean names(String node, String device) {
    return this.node.equals(node) && devices.stream().anyMatch(d -> d.device().equals(device));
  }

  /**
   * @param request the claim request this device satisfies
   */
  public record AllocatedDevice(String request, String device) {
    public AllocatedDevice {
      request = request == null ? "" : request;
      device = device == null ? "" : device;
    }
  }
}
