package dev.quartermaster.agent.node;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.NodeConditions;
import java.util.ArrayList;
import java.util.Optional;

/**
 * The Node's {@code DevicesReady} condition, from the control nodes as last checked and the last
 * discovery. Only the control nodes decide it (I3: a GPU container without them fails); GPUs that
 * discovery left out are named in the message, but do not make the others unusable.
 */
public final class DevicesReady {

  private DevicesReady() {}

  /**
   * {@code True/AllDevicesFound} with the GPU count and source, or {@code False} with the control
   * nodes' reason ({@code ControlNodeMissing}, {@code ControlNodeWrong}, {@code DriverNotLoaded})
   * and a message naming every path, e.g. {@code missing /dev/nvidia-uvm}.
   */
  public static Condition of(ControlNodeStatus controlNodes, Inventory inventory) {
    if (controlNodes instanceof ControlNodeStatus.Incomplete) {
      return new Condition(
          NodeConditions.DEVICES_READY,
          Condition.Status.False,
          controlNodes.reason(),
          controlNodes.message(),
          Optional.empty());
    }
    var parts = new ArrayList<String>();
    parts.add(inventory.gpus().size() + " GPUs (" + inventory.source() + ")");
    if (!inventory.problems().isEmpty()) {
      parts.add("left out: " + String.join("; ", inventory.problems()));
    }
    if (controlNodes instanceof ControlNodeStatus.Complete c && !c.notes().isEmpty()) {
      parts.add(String.join("; ", c.notes()));
    }
    var channels = inventory.channels();
    if (!channels.channels().isEmpty()
        || channels.absentReason().isPresent()
        || !channels.problems().isEmpty()) {
      // "no IMEX channels: /proc/devices lists no nvidia-caps-imex-channels major (...)"
      parts.add(channels.summary());
    }
    return new Condition(
        NodeConditions.DEVICES_READY,
        Condition.Status.True,
        "AllDevicesFound",
        String.join("; ", parts),
        Optional.empty());
  }
}
