package dev.quartermaster.agent.discovery;

/**
 * A way to find this node's GPUs: NVML ({@code dev.quartermaster.agent.nvml}), the /proc files
 * ({@link ProcGpuDiscovery}), or a simulated root (the same /proc files under another root). Every
 * backend gives the same {@link DiscoveryResult}; none throws for an absent driver.
 */
public interface GpuDiscovery {

  /** Looks now. */
  DiscoveryResult discover();
}
