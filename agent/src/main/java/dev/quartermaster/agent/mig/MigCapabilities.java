package dev.quartermaster.agent.mig;

/**
 * The minors of the MIG access files under {@code /dev/nvidia-caps/}, numbered as the driver's
 * {@code /proc/driver/nvidia-caps/mig-minors} lists them: {@code config} 1, {@code monitor} 2, then
 * per GPU (up to 32) each of 15 GPU instances' {@code access} followed by its 8 compute instances'.
 */
public final class MigCapabilities {
  private MigCapabilities() {}

  private static final int GPU_INSTANCES = 15;
  private static final int COMPUTE_INSTANCES = 8;
  private static final int PER_GI = 1 + COMPUTE_INSTANCES;

  /** {@code gpu<gpu>/gi<gi>/access}. */
  public static int giMinor(int gpu, int gi) {
    return 3 + (gpu * GPU_INSTANCES + gi) * PER_GI;
  }

  /** {@code gpu<gpu>/gi<gi>/ci<ci>/access}. */
  public static int ciMinor(int gpu, int gi, int ci) {
    return giMinor(gpu, gi) + 1 + ci;
  }

  /** What every capability file's name starts with, before its minor. */
  public static final String FILE_PREFIX = "nvidia-cap";

  /** {@code nvidia-cap<minor>}, the file's name under {@code /dev/nvidia-caps/}. */
  public static String fileName(int minor) {
    return FILE_PREFIX + minor;
  }

  /** The directory of the access files, inside a container as on the host. */
  public static final String DIR = "/dev/nvidia-caps";

  /** {@code /dev/nvidia-caps/nvidia-cap<minor>}. */
  public static String containerPath(int minor) {
    return DIR + "/" + fileName(minor);
  }
}
