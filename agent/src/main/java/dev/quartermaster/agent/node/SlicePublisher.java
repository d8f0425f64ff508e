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
import java.util.Optional;

/**
 * Writes this node's DeviceSlice (named after the node) when what it offers changed: created if
 * absent, else updated with compare-and-set, re-read on conflict. Serialized, so that an older view
 * never overwrites a newer one.
 *
 * <p>Every heartbeat publishes, and nearly always nothing changed: the slice as last written or
 * read here stands in for a read (which was one of a beat's three requests, and a slice is the
 * largest object an agent reads), and the slice is read again every {@link #READ_EVERY} publishes,
 * so one changed or deleted by anyone else is put right within a minute at the 10 s beat.
 */
public final class SlicePublisher {
  private static final int ATTEMPTS = 8;

  /** Publishes between two reads of an unchanged slice. */
  static final int READ_EVERY = 6;

  private final ApiClient api;
  private final String node;

  /** The slice as last written or read here; emptied when a write finds it out of date. */
  private Optional<DeviceSlice> last = Optional.empty(); // guarded by this

  /**
   * Where in the cycle of {@link #READ_EVERY} this node reads: its own, so that agents started
   * together (a fleet's restart) do not all read in the same beat every minute.
   */
  private final int phase;

  private long publishes; // guarded by this

  public SlicePublisher(ApiClient api, String node) {
    this.api = api;
    this.node = node;
    this.phase = Math.floorMod(node.hashCode(), READ_EVERY);
  }

  public synchronized void publish(List<Device> devices) {
    publish(devices, List.of());
  }

  /** As above, with the counter sets the devices consume (GPUs in MIG mode). */
  public synchronized void publish(
      List<Device> devices, List<dev.quartermaster.api.device.CounterSet> counters) {
    var spec = new DeviceSliceSpec(node, devices, counters);
    boolean same = last.isPresent() && last.get().spec().equals(spec);
    boolean due = (++publishes + phase) % READ_EVERY == 0;
    if (same && !due) {
      return;
    }
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        var current = attempt == 0 && !same && last.isPresent() ? last : read();
        if (current.isEmpty()) {
          last = Optional.of(api.create(new DeviceSlice(ObjectMeta.named(node), spec, null)));
        } else if (!current.get().spec().equals(spec)) {
          last =
              Optional.of(
                  api.update(
                      new DeviceSlice(current.get().metadata(), spec, current.get().status())));
        }
        return;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict) && !e.is(Reason.AlreadyExists) && !e.is(Reason.NotFound)) {
          throw e;
        }
        last = Optional.empty(); // someone else wrote it, or removed it: read again
      }
    }
  }

  private Optional<DeviceSlice> read() {
    last = api.get(Kinds.DEVICE_SLICE, node);
    return last;
  }
}
