package dev.quartermaster.control.allocator;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.queue.Result;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Removes a node's ledger entries whose claim is gone. Only then: a claim that is gone never comes
 * back (uids are never reused, and every claim write compares the claim's revision), so no
 * allocation in flight can still land on an entry we remove. Entries of claims that exist but no
 * longer hold the device (a race between two allocators left a second reservation, or a fence
 * cleared the allocation) are kept until the claim is deleted: they waste a device for the claim's
 * lifetime, never double-allocate it.
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
    var ledger = NodeLedger.entries(node.get());
    Set<String> unknown = ledger.values().stream()
        .filter(uid -> informers.claims().cache().byIndex(Informers.BY_UID, uid).isEmpty())
        .collect(Collectors.toSet());
    if (unknown.isEmpty()) {
      return Result.done();
    }
    // Our cache may simply not have seen the claim yet: only a live read proves it is gone.
    Set<String> live = api.list(Kinds.RESOURCE_CLAIM).items().stream()
        .map(c -> c.metadata().uid()).collect(Collectors.toSet());
    var liveNode = api.get(Kinds.NODE, nodeName);
    if (liveNode.isEmpty()) {
      return Result.done();
    }
    Set<String> gone = NodeLedger.entries(liveNode.get()).entrySet().stream()
        .filter(e -> unknown.contains(e.getValue()) && !live.contains(e.getValue()))
        .map(e -> e.getKey())
        .collect(Collectors.toSet());
    if (!gone.isEmpty()) {
      api.update(NodeLedger.without(liveNode.get(), gone));
    }
    return Result.done();
  }
}
