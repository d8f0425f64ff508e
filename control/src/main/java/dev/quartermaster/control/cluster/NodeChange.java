package dev.quartermaster.control.cluster;

import dev.quartermaster.api.node.Node;

/** What a Node's update changed, for the handlers that care about some changes only. */
public final class NodeChange {
  private NodeChange() {}

  /**
   * Whether {@code current} differs from {@code old} in its heartbeat alone: its agent's beat,
   * every 10 s from every node (1,000 updates a second at 10,000 nodes), which only the node
   * lifecycle controller reads.
   */
  public static boolean isHeartbeatOnly(Node old, Node current) {
    return current.movesOnlyHeartbeat(old);
  }
}
