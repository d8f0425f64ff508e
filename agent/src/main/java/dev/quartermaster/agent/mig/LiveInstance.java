package dev.quartermaster.agent.mig;

import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.util.Objects;

/**
 * A MIG instance that exists on a GPU now: a GPU instance at {@code placement} with one compute
 * instance taking all of it, as NVML lists them.
 *
 * @param gpu the parent's NVML index
 * @param giId the GPU instance's id (NVML's)
 * @param ciId the compute instance's id inside it
 * @param uuid the MIG device's UUID ({@code MIG-...}), what {@code CUDA_VISIBLE_DEVICES} carries
 * @param giCapMinor the minor of the GI's access file, {@code /dev/nvidia-caps/nvidia-cap<minor>}
 * @param ciCapMinor the minor of the CI's access file
 */
public record LiveInstance(
    int gpu,
    MigPlacement placement,
    int giId,
    int ciId,
    String uuid,
    int giCapMinor,
    int ciCapMinor) {
  public LiveInstance {
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(uuid, "uuid");
  }

  /** The device name it is published under on GPU {@code gpuName}. */
  public String deviceName(String gpuName) {
    return MigGeometry.deviceName(gpuName, placement);
  }

  @Override
  public String toString() {
    return "gpu " + gpu + " " + placement + " (gi " + giId + ", " + uuid + ")";
  }
}
