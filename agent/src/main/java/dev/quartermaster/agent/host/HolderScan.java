package dev.quartermaster.agent.host;

import java.util.List;

/**
 * What one look at the node's processes found: the live processes holding any of the devices asked
 * about, and the processes whose open files could not be read ({@code "pid 12: permission
 * denied"}), which may hold one too — said, never silently skipped.
 */
public record HolderScan(List<DeviceHolder> holders, List<String> unreadable) {
  public HolderScan {
    holders = List.copyOf(holders);
    unreadable = List.copyOf(unreadable);
  }

  /** Nobody holds anything and every process was read. */
  public static final HolderScan FREE = new HolderScan(List.of(), List.of());

  /** Whether no live process was found holding any of the devices. */
  public boolean free() {
    return holders.isEmpty();
  }
}
