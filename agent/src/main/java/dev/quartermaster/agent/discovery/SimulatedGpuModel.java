package dev.quartermaster.agent.discovery;

import dev.quartermaster.api.device.mig.MigModels;

/**
 * The GPUs a simulated device root can be built with: the product name its {@code information}
 * files give (as NVML would) and the memory they report. H100 is the default everywhere; both are
 * MIG-capable ({@link MigModels}), each with its own geometry, once an operator wishes a GPU
 * sliced.
 */
public enum SimulatedGpuModel {
  H100("NVIDIA H100 80GB HBM3", 85_520_809_984L),
  H200(MigModels.H200_NAME, 150_754_820_096L);

  private final String productName;
  private final long memoryBytes;

  SimulatedGpuModel(String productName, long memoryBytes) {
    this.productName = productName;
    this.memoryBytes = memoryBytes;
  }

  public String productName() {
    return productName;
  }

  public long memoryBytes() {
    return memoryBytes;
  }
}
