package dev.quartermaster.agent.discovery;

/** Fixed numbers of NVIDIA's driver. */
public final class DeviceNumbers {
  /** The GPU driver's char major ({@code NV_MAJOR_DEVICE_NUMBER} in nvidia-modprobe). */
  public static final long NVIDIA_MAJOR = 195;

  private DeviceNumbers() {}
}
