package dev.quartermaster.csi.hostpath;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How one hostpath plugin instance runs.
 *
 * @param nodeId this node's id, as NodeGetInfo reports it and ControllerPublish accepts it
 * @param stateDir where volumes ({@code volumes/<id>}) and the state files live
 * @param capacityBytes the total that CreateVolume may hand out
 * @param deviceSlots how many volumes one node may have attached at once (the "device names" per
 *     node)
 * @param controller whether the Controller service is served
 * @param node whether the Node service is served
 * @param detectOverlap whether a destructive controller call that overlaps another fails with
 *     ABORTED
 * @param callLatency an artificial delay in every call, so that tests can make calls overlap
 * @param staging how the node stages and publishes: bind mounts, links, or bind mounts where
 *     permitted
 */
public record HostpathConfig(
    String nodeId,
    Path stateDir,
    long capacityBytes,
    int deviceSlots,
    boolean controller,
    boolean node,
    boolean detectOverlap,
    Duration callLatency,
    Staging staging) {

  public static final String PLUGIN_NAME = "hostpath.csi.quartermaster.dev";
  public static final long DEFAULT_CAPACITY = 10L << 30;
  public static final int DEFAULT_DEVICE_SLOTS = 16;

  public HostpathConfig {
    Objects.requireNonNull(nodeId, "nodeId");
    if (nodeId.isEmpty() || nodeId.contains("/") || nodeId.equals(".") || nodeId.equals("..")) {
      throw new IllegalArgumentException("node id must be non-empty and contain no '/': " + nodeId);
    }
    stateDir = Objects.requireNonNull(stateDir, "stateDir").toAbsolutePath().normalize();
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("capacity must be positive");
    }
    // Device names run /dev/xvdb../dev/xvdz, as on EBS: at most 25.
    if (deviceSlots < 1 || deviceSlots > 25) {
      throw new IllegalArgumentException("device slots must be 1-25, not " + deviceSlots);
    }
    if (!controller && !node) {
      throw new IllegalArgumentException("serve the controller, the node, or both");
    }
    callLatency = callLatency == null ? Duration.ZERO : callLatency;
    staging = staging == null ? Staging.AUTO : staging;
  }

  /**
   * Controller and node, default capacity and slots, no overlap detection, no latency, and links
   * for staging: in-process users (tests, simulations) then leave no mounts behind.
   */
  public static HostpathConfig of(String nodeId, Path stateDir) {
    return new HostpathConfig(
        nodeId,
        stateDir,
        DEFAULT_CAPACITY,
        DEFAULT_DEVICE_SLOTS,
        true,
        true,
        false,
        Duration.ZERO,
        Staging.SYMLINK);
  }

  public HostpathConfig withCapacity(long bytes) {
    return new HostpathConfig(
        nodeId,
        stateDir,
        bytes,
        deviceSlots,
        controller,
        node,
        detectOverlap,
        callLatency,
        staging);
  }

  public HostpathConfig withDeviceSlots(int slots) {
    return new HostpathConfig(
        nodeId,
        stateDir,
        capacityBytes,
        slots,
        controller,
        node,
        detectOverlap,
        callLatency,
        staging);
  }

  public HostpathConfig withRoles(boolean serveController, boolean serveNode) {
    return new HostpathConfig(
        nodeId,
        stateDir,
        capacityBytes,
        deviceSlots,
        serveController,
        serveNode,
        detectOverlap,
        callLatency,
        staging);
  }

  public HostpathConfig withOverlapDetection(boolean on, Duration latency) {
    return new HostpathConfig(
        nodeId, stateDir, capacityBytes, deviceSlots, controller, node, on, latency, staging);
  }

  public HostpathConfig withStaging(Staging method) {
    return new HostpathConfig(
        nodeId,
        stateDir,
        capacityBytes,
        deviceSlots,
        controller,
        node,
        detectOverlap,
        callLatency,
        method);
  }

  Path volumesDir() {
    return stateDir.resolve("volumes");
  }

  Path controllerStateFile() {
    return stateDir.resolve("controller.json");
  }

  Path nodeStateFile(String id) {
    return stateDir.resolve(NODE_FILE_PREFIX + id + ".json");
  }

  static final String NODE_FILE_PREFIX = "node-";
}
