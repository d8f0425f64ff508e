package dev.quartermaster.api.node;

/**
 * How an operator wants one GPU shared ({@code spec.sharing.<gpu>}).
 *
 * @param mode the sharing mode
 * @param replicas how many claims may hold the GPU at once, from {@link #MIN_REPLICAS} to {@link
 *     #MAX_REPLICAS} (time-sliced: its replicas; MPS: its clients)
 */
public record GpuSharing(SharingMode mode, int replicas) {
  public static final int MIN_REPLICAS = 2;

  /** CUDA's MPS client limit per GPU on Volta and later; more turns than that only thrash. */
  public static final int MAX_REPLICAS = 48;

  public static GpuSharing timeSliced(int replicas) {
    return new GpuSharing(SharingMode.TimeSliced, replicas);
  }

  public static GpuSharing mps(int clients) {
    return new GpuSharing(SharingMode.Mps, clients);
  }
}
