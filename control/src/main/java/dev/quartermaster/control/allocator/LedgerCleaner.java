package dev.quartermaster.control.allocator;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.queue.Result;
import dev.quartermaster.api.claim.ResourceClaim;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Removes a node's ledger entries that can never be used again: the claim is gone, or it is
 * allocated and its allocation does not hold that device (a race between two allocators left a
 * second reservation on another node). Entries of pending claims are kept: an allocator may resume
 * them.
 *
 * <p>Why removing is safe: the node is read live <em>before</em> the claims, and the removal is a
 * compare-and-set on that node revision. A claim that is gone never comes back (uids are never
 * reused). An allocated claim can only become pending again through a fence, and an allocator that
 * then resumes an entry writes the node first (always, see {@code Allocator.commit}), which moves
 * the node past the revision this cleaner read — so one of the two writes fails and decides again.
 */
final class LedgerCleaner {
  private final ApiClient api;
  private final Informers informers;
  private final String nodeName;

  LedgerCleaner(ApiClient api, Informers informers, String nodeName) {
    this.api = api;
    this.informers = informers;
    this.nodeName = nodeName;
  }

  Result run() {
    var node = informers.nodes().cache().get(nodeName);
    if (node.isEmpty()) {
      return Result.done();
    }
    var suspects = NodeLedger.entries(node.get()).entrySet().stream()
        .filter(e -> isGarbage(e.getKey(), informers.claims().cache().byIndex(Informers.BY_UID, e.getValue()).stream().findFirst()))
        .count();
    if (suspects == 0) {
      return Result.done();
    }
    // Our caches may be behind: only live reads prove an entry is garbage. The node first.
    var liveNode = api.get(Kinds.NODE, nodeName);
    if (liveNode.isEmpty()) {
      return Result.done();
    }
    Map<String, ResourceClaim> claimsByUid = api.list(Kinds.RESOURCE_CLAIM).items().stream()
        .collect(Collectors.toMap(c -> c.metadata().uid(), c -> c, (a, b) -> a));
    Set<String> garbage = NodeLedger.entries(liveNode.get()).entrySet().stream()
        .filter(e -> isGarbage(e.getKey(), Optional.ofNullable(claimsByUid.get(e.getValue()))))
        .map(Map.Entry::getKey)
        .collect(Collectors.toSet());
    if (!garbage.isEmpty()) {
      api.update(NodeLedger.without(liveNode.get(), garbage));
    }
    return Result.done();
  }

  /** Whether the entry for {@code device} here can never be used by its claim (empty: gone). */
  private boolean isGarbage(String device, Optional<ResourceClaim> claim) {
    return claim.isEmpty()
        || (claim.get().status().allocation().isPresent() && !Allocator.holds(claim.get(), nodeName, device));
  }
}
