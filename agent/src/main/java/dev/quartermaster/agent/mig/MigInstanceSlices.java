package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.health.InstanceSlices;
import dev.quartermaster.api.device.mig.MigModels;
import java.util.List;
import java.util.Optional;

/**
 * The slice a GPU instance serves, looked up afresh in the driver's instances ({@link
 * MigControl#instances}): empty when the GPU has no known geometry, the instance is gone, or the
 * driver cannot be asked, so that the XID falls back to the whole GPU.
 */
public record MigInstanceSlices(MigControl control, List<DiscoveredGpu> gpus)
    implements InstanceSlices {
  public MigInstanceSlices {
    gpus = List.copyOf(gpus);
  }

  @Override
  public Optional<String> slice(String gpu, int giId) {
    for (var g : gpus) {
      if (!g.name().equals(gpu)) {
        continue;
      }
      var geometry = MigModels.forProduct(g.model());
      if (geometry.isEmpty()) {
        return Optional.empty();
      }
      try {
        return control.instances(new MigGpu(g.index(), g.name(), geometry.get())).stream()
            .filter(i -> i.giId() == giId)
            .findFirst()
            .map(i -> i.deviceName(gpu));
      } catch (MigRefusedException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}
