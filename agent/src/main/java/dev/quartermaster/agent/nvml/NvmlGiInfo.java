package dev.quartermaster.agent.nvml;

import java.util.Objects;

/**
 * {@code nvmlGpuInstanceInfo_t} without the parent's handle: a GPU instance that exists.
 *
 * @param id its id on the parent, what the capability file {@code gpu<minor>/gi<id>/access} names
 * @param profileId the profile it was created with
 */
public record NvmlGiInfo(int id, int profileId, NvmlPlacement placement) {
  public NvmlGiInfo {
    Objects.requireNonNull(placement, "placement");
  }
}
