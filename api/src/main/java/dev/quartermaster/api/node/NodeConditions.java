package dev.quartermaster.api.node;

/**
 * The condition types of a Node's status: one home for the words the agent writes and the rest
 * read.
 */
public final class NodeConditions {
  /** The agent runs and heartbeats ({@code True}), or was last heard of long ago. */
  public static final String AGENT_READY = "AgentReady";

  /** Every device node the node's GPUs need is there (I3); otherwise it says which is missing. */
  public static final String DEVICES_READY = "DevicesReady";

  private NodeConditions() {}
}
