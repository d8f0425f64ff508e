package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.device.use.Parts;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.sim.ForwardingApiClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;

/**
 * The naive sharing agent (the device plugin's way: a GPU advertised as N replicas and still as
 * itself): its published slice offers a time-sliced or MPS GPU whole beside its replicas or its MPS
 * device, and those as devices of their own, with no {@code parent} to tie them to the GPU. A GPU
 * is then handed out whole while it is shared. Reads go to the real API unchanged.
 */
final class WholeBesideReplicas extends ForwardingApiClient {
  WholeBesideReplicas(ApiClient api) {
    super(api);
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    return api.create(offered(object));
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    return api.update(offered(object));
  }

  @SuppressWarnings("unchecked")
  private static <T extends ApiObject> T offered(T o) {
    if (!(o instanceof DeviceSlice s)) {
      return o;
    }
    var devices = new ArrayList<Device>();
    var wholes = new LinkedHashMap<String, Device>();
    for (var d : s.spec().devices()) {
      if (!d.deviceClass().equals(TimeSlices.DEVICE_CLASS)
          && !d.deviceClass().equals(MpsShares.DEVICE_CLASS)) {
        devices.add(d);
        continue;
      }
      var attributes = new HashMap<>(d.attributes());
      var gpu = attributes.remove(Parts.PARENT);
      devices.add(new Device(d.name(), d.deviceClass(), attributes, d.health(), d.healthReason()));
      if (gpu != null && !wholes.containsKey(gpu)) {
        var whole = new HashMap<>(attributes);
        whole
            .keySet()
            .removeAll(
                java.util.List.of(
                    TimeSlices.REPLICA,
                    TimeSlices.REPLICAS,
                    TimeSlices.SHARING,
                    MpsShares.COMPUTE,
                    MpsShares.CLIENTS));
        wholes.put(gpu, new Device(gpu, "gpu", whole, d.health(), d.healthReason()));
      }
    }
    wholes
        .values()
        .forEach(
            w -> {
              if (devices.stream().noneMatch(d -> d.name().equals(w.name()))) devices.add(w);
            });
    return (T)
        new DeviceSlice(
            s.metadata(),
            new DeviceSliceSpec(s.spec().node(), devices, s.spec().sharedCounters()),
            s.status());
  }
}
