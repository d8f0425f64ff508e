package dev.quartermaster.agent.node;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.List;

/**
 * Writes this node's DeviceSlice (named after the node) when what it offers changed: created if
 * absent, else updated with compare-and-set, re-read on conflict. Serialized, so that an older view
 * never overwrites a newer one.
 */
public final class SlicePublisher {
  private static final int ATTEMPTS = 8;

  private final ApiClient api;
  private final String node;

  public SlicePublisher(ApiClient api, String node) {
    this.api = api;
    this.node = node;
  }

  public synchronized void publish(List<Device> devices) {
    publish(devices, List.of());
  }

  /** As above, with the counter sets the devices consume (GPUs in MIG mode). */
  public synchronized void publish(
      List<Device> devices, List<dev.quartermaster.api.device.CounterSet> counters) {
    var spec = new DeviceSliceSpec(node, devices, counters);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        var current = api.get(Kinds.DEVICE_SLICE, node);
        if (current.isEmpty()) {
          api.create(new DeviceSlice(ObjectMeta.named(node), spec, null));
        } else if (!current.get().spec().equals(spec)) {
          api.update(new DeviceSlice(current.get().metadata(), spec, current.get().status()));
        }
        return;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict) && !e.is(Reason.AlreadyExists)) {
          throw e;
        }
      }
    }
  }
}
