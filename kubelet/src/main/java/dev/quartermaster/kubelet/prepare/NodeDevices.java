package dev.quartermaster.kubelet.prepare;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.devices.NodeOffer;
import java.util.List;
import java.util.Objects;

/**
 * One look at the node: the devices discovery found, whether every control node a GPU container
 * needs is there (a GPU is usable only with both), and what the node offers of them by each GPU's
 * sharing ({@link NodeOffer}): whole GPUs, MIG slices with their GPUs' counter sets, an MPS device,
 * time-sliced replicas, and the channels.
 */
public record NodeDevices(
    Inventory inventory, ControlNodeStatus controlNodes, NodeOffer.Offered offered) {
  public NodeDevices {
    Objects.requireNonNull(inventory, "inventory");
    Objects.requireNonNull(controlNodes, "controlNodes");
    Objects.requireNonNull(offered, "offered");
  }

  /** Every GPU offered whole, with the channels. */
  public NodeDevices(Inventory inventory, ControlNodeStatus controlNodes) {
    this(inventory, controlNodes, whole(inventory));
  }

  private static NodeOffer.Offered whole(Inventory inventory) {
    var devices = new java.util.ArrayList<dev.quartermaster.api.device.Device>();
    inventory.gpus().forEach(g -> devices.add(g.toDevice()));
    inventory.channels().channels().forEach(c -> devices.add(c.toDevice()));
    return new NodeOffer.Offered(devices, List.of(), List.of(), List.of(), List.of());
  }
}
