package dev.quartermaster.store.registry;

import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The device use of a node, as the guards judge a holding ({@code
 * dev.quartermaster.api.device.use}): from the slice named after the node, the one slice that may
 * declare shared counters (validation says so). A node with no such slice, or one that declares
 * none, has {@link DeviceUse#WHOLE_DEVICES}. Each node's use is kept while its slice is unchanged,
 * so a guard pays a point read per judgement, not a walk of thousands of devices.
 */
final class NodeDeviceUse {
  /**
   * The use a guard judged by, and the compare that keeps the judgement exact: a slice whose
   * counters change meanwhile makes the write fail and be judged again. None when the node shares
   * no counters: each device its own counter depends on nothing the slice says.
   */
  record Judged(DeviceUse use, List<Compare> compares) {}

  private record Known(DeviceSliceSpec spec, DeviceUse use) {}

  private final StoredObjects stored;
  private final boolean countersJudged;
  private final ConcurrentHashMap<String, Known> known = new ConcurrentHashMap<>();

  NodeDeviceUse(StoredObjects stored) {
    this(stored, true);
  }

  /**
   * @param countersJudged false only for a naive variant's store: every device then its own
   *     counter, whatever its slice declares
   */
  NodeDeviceUse(StoredObjects stored, boolean countersJudged) {
    this.stored = stored;
    this.countersJudged = countersJudged;
  }

  /**
   * Whether a part held beside its whole (known by name when the slice no longer relates them) is
   * judged: not by a naive variant's store, blind to what devices share.
   */
  boolean partsJudged() {
    return countersJudged;
  }

  /** The use {@code spec} declares, as this judges it. */
  DeviceUse declared(DeviceSliceSpec spec) {
    return countersJudged ? DeviceUse.of(spec) : DeviceUse.WHOLE_DEVICES;
  }

  Judged of(Reads reads, String node) {
    if (!countersJudged) {
      return new Judged(DeviceUse.WHOLE_DEVICES, List.of());
    }
    var key = StoredObjects.key(Kinds.DEVICE_SLICE, node);
    Optional<KeyValue> kv = reads.get(key);
    if (kv.isEmpty()) {
      known.remove(key);
      return new Judged(DeviceUse.WHOLE_DEVICES, List.of());
    }
    var spec = stored.decode(Kinds.DEVICE_SLICE, kv.get()).spec();
    var use = useOf(key, spec);
    return new Judged(
        use,
        use.sharesCounters()
            ? List.of(new Compare.ModRevision(key, kv.get().modRevision()))
            : List.of());
  }

  private DeviceUse useOf(String key, DeviceSliceSpec spec) {
    var k = known.get(key);
    if (k != null && (k.spec() == spec || k.spec().equals(spec))) {
      return k.use();
    }
    var use = DeviceUse.of(spec);
    known.put(key, new Known(spec, use));
    return use;
  }
}
