package dev.quartermaster.agent.nvml;

/**
 * {@code nvmlGpuInstancePlacement_t}: where a GPU instance sits, in memory slices.
 *
 * @param start the first memory slice it occupies
 * @param size how many memory slices it occupies
 */
public record NvmlPlacement(int start, int size) {}
