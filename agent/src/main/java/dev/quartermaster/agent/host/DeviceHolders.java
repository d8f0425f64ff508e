package dev.quartermaster.agent.host;

import dev.quartermaster.agent.discovery.VerifiedNode;
import java.util.Map;

/**
 * Which live processes on the node hold a device open now. An unprepare is not proof that nobody
 * uses the device: the kubelet unprepares the claim of a force-deleted pod while its container may
 * still run, and an agent's task may outlive the claim it was started for. So before a device is
 * prepared for a new claim, whoever prepares asks this and waits while anything holds it.
 *
 * <p>{@link ProcDeviceHolders} reads the host's {@code /proc/*}{@code /fd}; the simulation asks its
 * own process table; {@link InMemoryDeviceHolders} is a table tests set by hand.
 */
@FunctionalInterface
public interface DeviceHolders {

  /**
   * The processes holding any of {@code devices} (device name → its node as discovery checked it)
   * open now.
   */
  HolderScan scan(Map<String, VerifiedNode> devices);
}
