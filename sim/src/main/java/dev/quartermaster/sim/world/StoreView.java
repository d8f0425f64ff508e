package dev.quartermaster.sim.world;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.sim.CommitListener;
import dev.quartermaster.store.StoreEvent;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The store's true state of the kinds the promises speak of (and what a gang's fit is judged by:
 * nodes, their slices and allocation records), kept by a {@link CommitListener}: each change is
 * decoded once, when it commits, so checking every promise after every step does not decode the
 * whole store each time (it did, and that was most of a campaign's time).
 */
final class StoreView implements CommitListener {
  private final Map<String, ResourceClaim> claims = new TreeMap<>();
  private final Map<String, Task> tasks = new TreeMap<>();
  private final Map<String, Workload> workloads = new TreeMap<>();
  private final Map<String, Volume> volumes = new TreeMap<>();
  private final Map<String, Node> nodes = new TreeMap<>();
  private final Map<String, DeviceSlice> slices = new TreeMap<>();
  private final Map<String, NodeAllocation> records = new TreeMap<>();
  private final Map<String, Queue> queues = new TreeMap<>();
  private final Map<String, QuotaLedger> ledgers = new TreeMap<>();

  private final TermStamps stamps = new TermStamps();
  private long revision;

  @Override
  public void committed(long revision, List<StoreEvent> changes) {
    this.revision = revision;
    stamps.committed(revision, changes);
    for (var e : changes) {
      var key = e.kv().key();
      apply(key, e, Kinds.RESOURCE_CLAIM, claims);
      apply(key, e, Kinds.TASK, tasks);
      apply(key, e, Kinds.WORKLOAD, workloads);
      apply(key, e, Kinds.VOLUME, volumes);
      apply(key, e, Kinds.NODE, nodes);
      apply(key, e, Kinds.DEVICE_SLICE, slices);
      apply(key, e, Kinds.NODE_ALLOCATION, records);
      apply(key, e, Kinds.QUEUE, queues);
      apply(key, e, Kinds.QUOTA_LEDGER, ledgers);
    }
  }

  private static <T extends ApiObject> void apply(
      String key, StoreEvent e, Kind<T> kind, Map<String, T> into) {
    var prefix = "/registry/" + kind.plural() + "/";
    if (!key.startsWith(prefix)) {
      return;
    }
    var name = key.substring(prefix.length());
    if (e.type() == StoreEvent.Type.DELETE) {
      into.remove(name);
    } else {
      into.put(name, ObjectCodec.fromJson(e.kv().value(), kind));
    }
  }

  /** TERM over the commits seen (a commit's term is judged when it commits, not later). */
  TermStamps termStamps() {
    return stamps;
  }

  /** The store's revision of the last commit seen. */
  long revision() {
    return revision;
  }

  Collection<ResourceClaim> claims() {
    return claims.values();
  }

  Optional<ResourceClaim> claim(String name) {
    return Optional.ofNullable(claims.get(name));
  }

  Collection<Task> tasks() {
    return tasks.values();
  }

  Optional<Task> task(String name) {
    return Optional.ofNullable(tasks.get(name));
  }

  Collection<Workload> workloads() {
    return workloads.values();
  }

  Collection<Volume> volumes() {
    return volumes.values();
  }

  Optional<Node> node(String name) {
    return Optional.ofNullable(nodes.get(name));
  }

  Collection<Node> nodes() {
    return nodes.values();
  }

  Collection<DeviceSlice> slices() {
    return slices.values();
  }

  Collection<NodeAllocation> records() {
    return records.values();
  }

  Optional<Queue> queue(String name) {
    return Optional.ofNullable(queues.get(name));
  }

  Collection<QuotaLedger> ledgers() {
    return ledgers.values();
  }
}
