package dev.quartermaster.api.workload;

/**
 * What the agent does with a running task when its node loses a device node the task was given (a
 * control node such as {@code /dev/nvidia-uvm}, or its GPU's own node). Either way the task's
 * {@code DevicesComplete} condition says which path is missing.
 */
public enum DeviceLossPolicy {
  /**
   * Leave the task running; only the condition changes (and changes back when the node returns).
   */
  Continue,
  /** Kill the task: it ends {@code Failed} with reason {@code DeviceNodeMissing}. */
  Stop
}
