package dev.quartermaster.api.node;

/**
 * @param unschedulable no new allocations go to this node
 * @param fenced an operator declared the node dead (qm node fence): its claims may be re-allocated
 */
public record NodeSpec(boolean unschedulable, boolean fenced) {
  public static final NodeSpec EMPTY = new NodeSpec(false, false);
}
