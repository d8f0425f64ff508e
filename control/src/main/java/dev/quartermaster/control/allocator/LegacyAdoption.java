package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.control.cluster.Informers;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one-time migration of a store written before records existed (the record was Node labels,
 * which are not migrated): claims allocated, and no record entry for their devices. Per node, once:
 * each device that an allocated claim names and no one holds is recorded for that claim, so that
 * invariant R ({@code package-info}) holds on the node from then on. After that the store keeps R
 * against every writer ({@code AllocationGuard}): no claim can come to name a device its record
 * does not give it, and no write can drop the entry of a live claim allocated that device. So once
 * a node is adopted it stays adopted, and nothing on the commit path needs to look again.
 *
 * <p>Until a node is adopted, the allocator does not hand out a device there that a cached
 * allocated claim names ({@link AllocationWrite}); it waits for the adoption instead. A node is
 * adopted on its first clean-up ({@link AllocatorKey.ForNode}: queued on its first event and at
 * leadership), once the claims' cache has listed: adopting from a cache not yet filled would miss
 * claims and call the node done.
 */
final class LegacyAdoption {
  private static final Logger LOG = LoggerFactory.getLogger(LegacyAdoption.class);

  private final ApiClient api;
  private final Informers informers;
  private final Set<String> adopted = ConcurrentHashMap.newKeySet();

  LegacyAdoption(ApiClient api, Informers informers) {
    this.api = api;
    this.informers = informers;
  }

  /** Whether {@code node}'s record has adopted every claim allocated there before records. */
  boolean isDone(String node) {
    return adopted.contains(node);
  }

  /**
   * Adopts {@code node}'s claims from before records, if it has not yet: true once it has, false if
   * it cannot tell yet (the claims' cache has not listed). A lost compare-and-set throws.
   */
  boolean run(String node) {
    if (adopted.contains(node)) {
      return true;
    }
    if (!informers.claims().hasSynced()) {
      return false;
    }
    var cached =
        informers
            .nodeAllocations()
            .cache()
            .get(node)
            .map(NodeAllocation::spec)
            .orElse(NodeAllocationSpec.EMPTY);
    var allocatedHere = informers.claims().cache().byIndex(Informers.BY_NODE, node);
    var missing = unrecorded(node, cached, allocatedHere);
    if (!missing.isEmpty()) {
      // The cache may be behind: only the live record and claims say what is missing.
      var live = api.get(Kinds.NODE_ALLOCATION, node);
      var record = live.map(NodeAllocation::spec).orElse(NodeAllocationSpec.EMPTY);
      var claims = new HashMap<String, Optional<ResourceClaim>>();
      var adopt = new HashMap<String, DeviceHolder>();
      missing.forEach(
          (device, holder) -> {
            var claim =
                claims
                    .computeIfAbsent(holder.claim(), name -> api.get(Kinds.RESOURCE_CLAIM, name))
                    .filter(c -> c.metadata().uid().equals(holder.uid()));
            if (record.holder(device).isEmpty()
                && claim.filter(c -> c.allocates(node, device)).isPresent()) {
              adopt.put(device, holder);
            }
          });
      if (!adopt.isEmpty()) {
        LOG.warn(
            "node {}: recording {} device(s) that allocated claims name but its record lacks: {}",
            node,
            adopt.size(),
            adopt);
        if (live.isPresent()) {
          api.update(live.get().withSpec(record.with(adopt)));
        } else {
          api.create(new NodeAllocation(ObjectMeta.named(node), record.with(adopt), null));
        }
      }
    }
    adopted.add(node);
    return true;
  }

  /**
   * Devices that {@code claims} are allocated on {@code node} and that no one holds in {@code
   * record}.
   */
  static Map<String, DeviceHolder> unrecorded(
      String node, NodeAllocationSpec record, Collection<ResourceClaim> claims) {
    var out = new HashMap<String, DeviceHolder>();
    for (var c : claims) {
      c.status()
          .allocation()
          .filter(a -> a.node().equals(node))
          .ifPresent(
              a ->
                  a.devices().stream()
                      .map(AllocatedDevice::device)
                      .filter(d -> record.holder(d).isEmpty())
                      .forEach(
                          d ->
                              out.putIfAbsent(
                                  d, new DeviceHolder(c.metadata().name(), c.metadata().uid()))));
    }
    return out;
  }
}
