package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.control.cluster.Informers;
import java.util.List;
import java.util.Optional;

/**
 * Where the {@link DeviceIndex} reads a node from: the node, its allocation record and its slices,
 * each by the node's name. The index reads them under its own lock ({@link
 * DeviceIndex#refresh(String, NodeCaches)}), so that of two refreshes of one node the later one
 * always reads the newer caches: the informers of nodes, records and slices refresh on threads of
 * their own, and a view built from caches read before another thread's refresh could land after it
 * and undo it — with no event left to correct it in a quiet cluster.
 */
interface NodeCaches {
  Optional<Node> node(String name);

  Optional<NodeAllocation> record(String name);

  List<DeviceSlice> slices(String name);

  /** The informers' caches. */
  static NodeCaches of(Informers informers) {
    return new NodeCaches() {
      @Override
      public Optional<Node> node(String name) {
        return informers.nodes().cache().get(name);
      }

      @Override
      public Optional<NodeAllocation> record(String name) {
        return informers.nodeAllocations().cache().get(name);
      }

      @Override
      public List<DeviceSlice> slices(String name) {
        return informers.slices().cache().byIndex(Informers.BY_NODE, name);
      }
    };
  }

  /**
   * The newer of a node read live (by a commit, before it wrote) and the cached one, by revision: a
   * cache may lag behind the live read, and the live read may be older than a change the cache has
   * shown since. None cached: the node is gone (or not listed, and then not placed on either).
   */
  static Optional<Node> newer(Optional<Node> live, Optional<Node> cached) {
    if (live.isEmpty() || cached.isEmpty()) {
      return cached;
    }
    return live.get().metadata().revision() > cached.get().metadata().revision() ? live : cached;
  }
}
