package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.meta.ApiObject;
import java.util.HashMap;
import java.util.List;

/**
 * The naive MIG placement of issue 46 (the field's whole-GPU-and-slices bug, dra-driver-nvidia-gpu
 * #719, one level down): the real allocator reading the cluster through this view sees each MIG
 * slice as a device of its own — no shared counters, and no {@code parent} to read a GPU's
 * positions from — so it hands out {@code 3g} at 0 and {@code 1g} at 1 of one GPU as if they were
 * two GPUs. Writes go to the real API unchanged.
 */
final class CounterBlindApi extends RewrittenReads {
  CounterBlindApi(ApiClient api) {
    super(api);
  }

  @Override
  @SuppressWarnings("unchecked")
  <T extends ApiObject> T seen(T o) {
    if (!(o instanceof DeviceSlice s) || !s.spec().sharesCounters()) {
      return o;
    }
    var devices = s.spec().devices().stream().map(CounterBlindApi::alone).toList();
    return (T)
        new DeviceSlice(
            s.metadata(), new DeviceSliceSpec(s.spec().node(), devices, List.of()), s.status());
  }

  private static Device alone(Device d) {
    var attributes = new HashMap<>(d.attributes());
    attributes.remove(MigGeometry.PARENT);
    return new Device(d.name(), d.deviceClass(), attributes, d.health(), d.healthReason());
  }
}
