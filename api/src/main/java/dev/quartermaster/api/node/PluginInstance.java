package dev.quartermaster.api.node;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * A CSI plugin found on a node by its agent, as probed.
 *
 * @param name the plugin's name (GetPluginInfo), e.g. {@code hostpath.csi.quartermaster.dev}
 * @param endpoint where it listens, e.g. {@code unix:///var/lib/qm/plugins/hostpath.sock}
 * @param version the plugin's vendor version
 * @param roles what it serves here
 * @param healthy the last Probe said ready
 * @param message why not healthy, or empty
 * @param csiNodeId the plugin's id for this node (NodeGetInfo), used in ControllerPublish
 */
public record PluginInstance(
    String name,
    String endpoint,
    String version,
    Set<PluginRole> roles,
    boolean healthy,
    String message,
    String csiNodeId) {
  public PluginInstance {
    name = name == null ? "" : name;
    endpoint = endpoint == null ? "" : endpoint;
    version = version == null ? "" : version;
    // In the roles' declared order, so that the node status is written the same bytes in every
    // run (Set.copyOf iterates in an order salted afresh by each JVM).
    var ordered = EnumSet.noneOf(PluginRole.class);
    if (roles != null) {
      roles.forEach(r -> ordered.add(java.util.Objects.requireNonNull(r, "role")));
    }
    roles = Collections.unmodifiableSet(ordered);
    message = message == null ? "" : message;
    csiNodeId = csiNodeId == null ? "" : csiNodeId;
  }
}
