package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.NodeReadiness;
import dev.quartermaster.core.informer.EventHandler;

/**
 * What wakes the allocator: a node's readiness or spec, its allocation record or device slice
 * (capacity: the index is refreshed and blocked keys retried), a device class (blocked keys
 * retried), a claim (its key; a placed claim's stray reservations and a deleted claim's entries are
 * garbage for the node's cleaner), a task (its key).
 */
final class AllocatorTriggers {
  private AllocatorTriggers() {}

  /**
   * Whether a claim's change is one the allocator acts on: its request, owner or deletion, its
   * allocation, or the allocator's own word on it. Not the agents' prepare states, finalizers or
   * the scheduler's reservations, which make up most of a claim's writes.
   */
  static boolean allocatorReads(ResourceClaim o, ResourceClaim c) {
    return !o.spec().equals(c.spec()) || !o.metadata().owner().equals(c.metadata().owner())
        || o.metadata().isDeleting() != c.metadata().isDeleting()
        || !o.status().allocation().equals(c.status().allocation())
        || !o.status().conditions().equals(c.status().conditions());
  }

  static void register(Informers informers, DeviceIndex index, ControlLoop loop, Allocator allocator) {
    // A claim that waits for its compute domain to exist (or to stop being deleted) is blocked.
    informers.computeDomains().addHandler(EventHandler.onAnyChange(d -> allocator.retryBlocked()));
    informers.nodes().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(Node n) {
        allocator.nodeChanged(n.metadata().name(), true);
      }

      @Override
      public void onUpdate(Node old, Node n) {
        boolean matters = NodeReadiness.isSchedulable(old) != NodeReadiness.isSchedulable(n) || !old.spec().equals(n.spec());
        allocator.nodeChanged(n.metadata().name(), matters);
      }

      @Override
      public void onDelete(Node n) {
        allocator.nodeChanged(n.metadata().name(), true);
      }
    });
    informers.nodeAllocations().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(NodeAllocation a) {
        allocator.nodeChanged(a.metadata().name(), true);
      }

      @Override
      public void onUpdate(NodeAllocation old, NodeAllocation a) {
        allocator.nodeChanged(a.metadata().name(), !old.spec().equals(a.spec()));
      }

      @Override
      public void onDelete(NodeAllocation a) {
        index.recordDeleted(a.metadata().name());
        allocator.nodeChanged(a.metadata().name(), true);
      }
    });
    informers.slices().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(DeviceSlice s) {
        allocator.nodeChanged(s.spec().node(), true);
      }

      @Override
      public void onUpdate(DeviceSlice old, DeviceSlice s) {
        allocator.nodeChanged(old.spec().node(), true);
        allocator.nodeChanged(s.spec().node(), true);
      }

      @Override
      public void onDelete(DeviceSlice s) {
        allocator.nodeChanged(s.spec().node(), true);
      }
    });
    informers.deviceClasses().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(DeviceClass c) {
        allocator.retryBlocked();
      }

      @Override
      public void onUpdate(DeviceClass o, DeviceClass c) {
        allocator.retryBlocked();
      }
    });
    informers.claims().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(ResourceClaim c) {
        loop.enqueue(Allocator.keyOf(c));
      }

      @Override
      public void onUpdate(ResourceClaim o, ResourceClaim c) {
        if (allocatorReads(o, c)) {
          loop.enqueue(Allocator.keyOf(c));
        }
        if (c.status().allocation().isPresent() && o.status().allocation().isEmpty()) {
          // A reservation left on another node by a lost race is garbage now that the claim is placed.
          index.reservationsOf(c.metadata().uid()).keySet().stream()
              .filter(n -> !n.equals(c.status().allocation().get().node()))
              .forEach(n -> loop.enqueue("node/" + n));
        }
      }

      @Override
      public void onDelete(ResourceClaim c) {
        // Its record entries are garbage now.
        c.status().allocation().ifPresent(a -> loop.enqueue("node/" + a.node()));
        index.reservationsOf(c.metadata().uid()).keySet().forEach(n -> loop.enqueue("node/" + n));
      }
    });
    informers.tasks().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(Task t) {
        loop.enqueue("task/" + t.metadata().name());
      }

      @Override
      public void onUpdate(Task o, Task t) {
        // Its claims, its pin, or its end: not its progress through Scheduled, Preparing, Running.
        if (!o.spec().equals(t.spec()) || o.metadata().isDeleting() != t.metadata().isDeleting()
            || o.status().phase().isFinished() != t.status().phase().isFinished()) {
          loop.enqueue("task/" + t.metadata().name());
        }
      }
    });
  }
}
