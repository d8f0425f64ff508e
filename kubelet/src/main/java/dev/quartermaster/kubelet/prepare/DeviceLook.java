package dev.quartermaster.kubelet.prepare;

import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.host.DeviceTree;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The node's devices as last discovered, looked at again at the start of every kubelet call: the
 * plugin has no rescan loop of its own yet, and a prepare must not be refused for a GPU that came
 * back after the last look.
 */
public final class DeviceLook {
  private final DeviceTree tree;
  private final AtomicReference<Inventory> last;

  public DeviceLook(DeviceTree tree) {
    this.tree = Objects.requireNonNull(tree, "tree");
    this.last = new AtomicReference<>(look());
  }

  /** What the last look found. */
  public Inventory current() {
    return last.get();
  }

  /** Looks again now. */
  public Inventory rescan() {
    var found = look();
    last.set(found);
    return found;
  }

  private Inventory look() {
    return Inventory.of(tree.discovery().discover(), tree.channels());
  }
}
