package dev.quartermaster.agent.mig;

import dev.quartermaster.api.device.mig.MigGeometry;
import java.util.Objects;

/**
 * One GPU as the MIG seam addresses it: its NVML index, its device name ({@code gpu-0}) and the
 * geometry its product has.
 */
public record MigGpu(int index, String name, MigGeometry geometry) {
  public MigGpu {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(geometry, "geometry");
  }
}
