package dev.quartermaster.api.device.mps;

/**
 * One claim's share of an MPS GPU: its compute (percent of the GPU's SMs) and memory (whole GiB),
 * and a number that tells apart shares of one size on one GPU.
 */
public record MpsShare(String gpu, int computePercent, int memoryGiB, int index) {
  /** The device name a holding of this share is recorded under: {@code gpu-0-mps-50pct-20gib-0}. */
  public String name() {
    return MpsShares.template(gpu) + "-" + computePercent + "pct-" + memoryGiB + "gib-" + index;
  }

  /**
   * The environment that gives a client this share's limits: its compute percentage and its memory
   * cap, on device 0 (a client sees its share's GPU only).
   */
  public java.util.List<String> limits() {
    return java.util.List.of(
        MpsVariables.ACTIVE_THREAD_PERCENTAGE + "=" + computePercent,
        MpsVariables.PINNED_DEVICE_MEM_LIMIT + "=0=" + memoryGiB + "G");
  }
}
