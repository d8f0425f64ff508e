package dev.quartermaster.agent.nvml;

/**
 * {@code nvmlDeviceGetMigMode}: the mode in force, and the one that takes over at the next
 * activation (a GPU reset). They differ while a change waits for that reset.
 */
public record NvmlMigMode(boolean current, boolean pending) {
  /** Whether a change was asked for that is not in force yet. */
  public boolean changePending() {
    return current != pending;
  }
}
