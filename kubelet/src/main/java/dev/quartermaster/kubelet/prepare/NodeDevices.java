package dev.quartermaster.kubelet.prepare;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import java.util.Objects;

/**
 * One look at the node: the devices discovery found and whether every control node a GPU container
 * needs is there. A GPU is usable only with both.
 */
public record NodeDevices(Inventory inventory, ControlNodeStatus controlNodes) {
  public NodeDevices {
    Objects.requireNonNull(inventory, "inventory");
    Objects.requireNonNull(controlNodes, "controlNodes");
  }
}
