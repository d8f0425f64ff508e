package dev.quartermaster.api.client;

import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.meta.Kinds;
import java.util.HashMap;
import java.util.Map;

/**
 * A node's published devices and who holds which, as a listing reads them for its MIG and shared
 * GPUs: the node's slice, and its allocation record's holders as an operator reads them ({@code
 * claim/a}).
 */
record HeldDevices(DeviceSliceSpec slice, Map<String, String> holders) {
  static HeldDevices read(ApiClient api, String node) {
    var holders = new HashMap<String, String>();
    api.get(Kinds.NODE_ALLOCATION, node)
        .ifPresent(r -> r.spec().devices().forEach((d, h) -> holders.put(d, "claim/" + h.claim())));
    var slice = api.get(Kinds.DEVICE_SLICE, node).map(s -> s.spec()).orElse(DeviceSliceSpec.EMPTY);
    return new HeldDevices(slice, holders);
  }
}
