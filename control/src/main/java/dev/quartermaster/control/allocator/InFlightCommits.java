package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.NodeAllocation;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The allocator's own writes the caches do not show yet: the nodes a placement was handed out on
 * whose commit has not finished, and the record each node's last successful commit left. The {@link
 * DeviceIndex} consults both: it steers a placement away from a node being committed to, and
 * indexes the record as our own write left it rather than as a lagging cache still shows it — the
 * next placement then sees the devices just taken instead of picking them again and losing the
 * compare-and-set (with one allocator filling nodes best fit, about a fifth of the allocations in
 * the end-to-end bench did). Thread-safe.
 */
final class InFlightCommits {
  private final Set<String> committing = new HashSet<>();

  /** Per node, the record as our last write left it, kept until the cache shows that revision. */
  private final Map<String, NodeAllocation> written = new HashMap<>();

  /**
   * A placement on {@code node} was handed out: its commit begins. False if one is in flight
   * already.
   */
  synchronized boolean begin(String node) {
    return committing.add(node);
  }

  synchronized boolean isCommitting(String node) {
    return committing.contains(node);
  }

  /** The commit that {@link #begin} started on {@code node} has finished, written or not. */
  synchronized void end(String node) {
    committing.remove(node);
  }

  /** Our commit wrote {@code record}. */
  synchronized void wrote(NodeAllocation record) {
    var name = record.metadata().name();
    var ours = written.get(name);
    if (ours == null || ours.metadata().revision() < record.metadata().revision()) {
      written.put(name, record);
    }
  }

  /**
   * The freshest record of {@code node} we know of: our own last write while {@code cached} is not
   * past it (or shows none), else {@code cached} — and then our write is forgotten.
   */
  synchronized Optional<NodeAllocation> latest(String node, Optional<NodeAllocation> cached) {
    var ours = written.get(node);
    if (ours != null
        && (cached.isEmpty() || ours.metadata().revision() >= cached.get().metadata().revision())) {
      return Optional.of(ours);
    }
    written.remove(node);
    return cached;
  }

  /** The record of {@code node} was deleted: our own last write no longer stands for it. */
  synchronized void recordDeleted(String node) {
    written.remove(node);
  }
}
