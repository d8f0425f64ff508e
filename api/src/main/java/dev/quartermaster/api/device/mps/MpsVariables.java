package dev.quartermaster.api.device.mps;

/** The environment CUDA reads to make a process an MPS client, and with what limits. */
public final class MpsVariables {
  /** Where the GPU's MPS control daemon listens. */
  public static final String PIPE_DIRECTORY = "CUDA_MPS_PIPE_DIRECTORY";

  public static final String LOG_DIRECTORY = "CUDA_MPS_LOG_DIRECTORY";

  /** The client's share of the GPU's SMs, in percent. */
  public static final String ACTIVE_THREAD_PERCENTAGE = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE";

  /** The client's hard cap on device memory, {@code <ordinal>=<size>} (Volta+, CUDA 11.5+). */
  public static final String PINNED_DEVICE_MEM_LIMIT = "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT";

  private MpsVariables() {}
}
