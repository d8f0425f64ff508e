package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.queue.Result;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Keeps a node's allocation record true to the claims: removes entries that can never be used again
 * — the claim is gone (a claim re-created under its name has another uid), or it is allocated and
 * its allocation does not hold that device (a race between two allocators left a second reservation
 * on another node). Entries of pending claims are kept: an allocator may resume them. (Devices that
 * allocated claims name and the record lacks, from a store written before records, are {@link
 * LegacyAdoption}'s, once per node.)
 *
 * <p>Why removing is safe: the store refuses to drop an entry whose claim is live and allocated
 * that device, checking the claim in the same transaction as the write (see {@code
 * AllocationGuard}). So a cleaner that decided on stale reads can at worst take back a reservation
 * a resuming allocator was about to use — whose claim write the store then refuses, and the
 * allocator decides again.
 */
final class RecordCleaner {
  private final ApiClient api;
  private final Informers informers;
  private final String nodeName;

  RecordCleaner(ApiClient api, Informers informers, String nodeName) {
    this.api = api;
    this.informers = informers;
    this.nodeName = nodeName;
  }

  Result run() {
    var cached =
        informers
            .nodeAllocations()
            .cache()
            .get(nodeName)
            .map(NodeAllocation::spec)
            .orElse(NodeAllocationSpec.EMPTY);
    Function<String, Optional<ResourceClaim>> cachedByUid =
        uid -> informers.claims().cache().byIndex(Informers.BY_UID, uid).stream().findFirst();
    var suspects = garbage(cached, cachedByUid);
    if (suspects.isEmpty()) {
      return Result.done();
    }
    // Our caches may be behind: only live reads prove an entry is garbage. Only the claims the
    // suspects name are read (listing every claim on each node event was quadratic at fleet size);
    // an entry the cache does not suspect yet is looked at when it does.
    var live = api.get(Kinds.NODE_ALLOCATION, nodeName);
    var record = live.map(NodeAllocation::spec).orElse(NodeAllocationSpec.EMPTY);
    var claims = new HashMap<String, Optional<ResourceClaim>>();
    Function<DeviceHolder, Optional<ResourceClaim>> liveClaim =
        holder ->
            claims
                .computeIfAbsent(holder.claim(), name -> api.get(Kinds.RESOURCE_CLAIM, name))
                .filter(c -> c.metadata().uid().equals(holder.uid()));
    var drop = new HashSet<String>();
    for (var device : suspects) {
      record
          .holder(device)
          .filter(h -> isGarbage(device, liveClaim.apply(h)))
          .ifPresent(h -> drop.add(device));
    }
    if (drop.isEmpty() || live.isEmpty()) {
      return Result.done();
    }
    api.update(live.get().withSpec(record.without(drop)));
    return Result.done();
  }

  /**
   * The devices of {@code record} whose entries can never be used by their claim (found by uid).
   */
  private Set<String> garbage(
      NodeAllocationSpec record, Function<String, Optional<ResourceClaim>> byUid) {
    return record.devices().entrySet().stream()
        .filter(e -> isGarbage(e.getKey(), byUid.apply(e.getValue().uid())))
        .map(Map.Entry::getKey)
        .collect(Collectors.toSet());
  }

  /** Whether the entry for {@code device} here can never be used by its claim (empty: gone). */
  private boolean isGarbage(String device, Optional<ResourceClaim> claim) {
    return claim.isEmpty()
        || (claim.get().status().allocation().isPresent()
            && !claim.get().allocates(nodeName, device));
  }
}
