package dev.quartermaster.api.node;

/**
 * How an operator wants one GPU sliced by MIG ({@code qm node mig}); a GPU named nowhere is used
 * whole. The agent changes a GPU's MIG mode only while nothing holds it or any slice of it.
 */
public enum MigMode {
  /**
   * MIG mode on; the agent publishes every possible instance (profile × placement) and creates the
   * one a claim was allocated when it prepares the claim, destroying it when it unprepares.
   */
  Dynamic,
  /**
   * MIG mode on; the agent publishes exactly the instances that exist (made by the operator, e.g.
   * with {@code nvidia-smi mig} or mig-parted) and never creates or destroys one.
   */
  Static
}
