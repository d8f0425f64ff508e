package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.queue.Result;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Removes the entries of a node's allocation record that can never be used again: the claim is
 * gone (a claim re-created under its name has another uid), or it is allocated and its allocation
 * does not hold that device (a race between two allocators left a second reservation on another
 * node). Entries of pending claims are kept: an allocator may resume them.
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
    var cached = informers.nodeAllocations().cache().get(nodeName);
    if (cached.isEmpty()) {
      return Result.done();
    }
    var suspects = cached.get().spec().devices().entrySet().stream()
        .filter(e -> isGarbage(e.getKey(), informers.claims().cache().byIndex(Informers.BY_UID, e.getValue().uid()).stream().findFirst()))
        .count();
    if (suspects == 0) {
      return Result.done();
    }
    // Our caches may be behind: only live reads prove an entry is garbage.
    var live = api.get(Kinds.NODE_ALLOCATION, nodeName);
    if (live.isEmpty()) {
      return Result.done();
    }
    Map<String, ResourceClaim> claimsByUid = api.list(Kinds.RESOURCE_CLAIM).items().stream()
        .collect(Collectors.toMap(c -> c.metadata().uid(), c -> c, (a, b) -> a));
    Set<String> garbage = live.get().spec().devices().entrySet().stream()
        .filter(e -> isGarbage(e.getKey(), Optional.ofNullable(claimsByUid.get(e.getValue().uid()))))
        .map(Map.Entry::getKey)
        .collect(Collectors.toSet());
    if (!garbage.isEmpty()) {
      api.update(live.get().withSpec(live.get().spec().without(garbage)));
    }
    return Result.done();
  }

  /** Whether the entry for {@code device} here can never be used by its claim, found by uid (empty: gone). */
  private boolean isGarbage(String device, Optional<ResourceClaim> claim) {
    return claim.isEmpty()
        || (claim.get().status().allocation().isPresent() && !Allocator.holds(claim.get(), nodeName, device));
  }
}
