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

  /**
   * Every GPU is in the MIG mode its node's {@code spec.mig} wishes and offers what it should
   * ({@code True}); otherwise why not: a mode change waiting for claims to let go, a model without
   * a known MIG geometry. Only on nodes that have had a MIG wish.
   */
  public static final String MIG_READY = "MigReady";

  private NodeConditions() {}
}
