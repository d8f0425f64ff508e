package dev.quartermaster.agent.nvml;

import java.util.Objects;

/**
 * A GPU instance profile as NVML describes it ({@code nvmlGpuInstanceProfileInfo_v2_t}); its name
 * drifts between drivers, its slices not.
 *
 * @param id the profile's id on this device, what create and list calls take
 * @param sliceCount compute slices (sevenths on H100/H200/B200)
 * @param instanceCount how many instances of it fit the GPU side by side
 * @param memoryMb its memory, in MiB
 * @param name NVML's name for it, e.g. {@code MIG 3g.71gb}
 */
public record NvmlGiProfile(int id, int sliceCount, int instanceCount, long memoryMb, String name) {
  public NvmlGiProfile {
    Objects.requireNonNull(name, "name");
  }
}
