package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.util.Objects;

/**
 * A slice this node publishes: a possible instance of {@code parent} (Dynamic: made when a claim on
 * it is prepared) or one that exists (Static: made by the operator).
 */
public record MigSlice(DiscoveredGpu parent, MigGpu gpu, MigPlacement placement, boolean dynamic) {
  public MigSlice {
    Objects.requireNonNull(parent, "parent");
    Objects.requireNonNull(gpu, "gpu");
    Objects.requireNonNull(placement, "placement");
  }

  public String name() {
    return MigGeometry.deviceName(parent.name(), placement);
  }
}
