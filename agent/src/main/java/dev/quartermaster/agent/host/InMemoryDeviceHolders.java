package dev.quartermaster.agent.host;

import dev.quartermaster.agent.discovery.VerifiedNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Device holders set by hand: {@link #open} says a process holds a device, {@link #exit} that it is
 * gone. For tests and simulated nodes, whose processes are not the host's.
 */
public final class InMemoryDeviceHolders implements DeviceHolders {
  private final List<DeviceHolder> open = new ArrayList<>();
  private final List<String> unreadable = new ArrayList<>();

  /** Process {@code pid} ({@code command}) opens {@code device}'s node, seen as {@code path}. */
  public synchronized void open(String device, long pid, String command, String path) {
    open.add(new DeviceHolder(device, pid, command, path));
  }

  /** Process {@code pid} exits: it holds nothing any more. */
  public synchronized void exit(long pid) {
    open.removeIf(h -> h.pid() == pid);
  }

  /** From now on, every scan also says that {@code pid} could not be read. */
  public synchronized void cannotRead(long pid, String why) {
    unreadable.add("pid " + pid + ": " + why);
  }

  @Override
  public synchronized HolderScan scan(Map<String, VerifiedNode> devices) {
    return new HolderScan(
        open.stream().filter(h -> devices.containsKey(h.device())).toList(), unreadable);
  }
}
