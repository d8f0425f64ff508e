package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.allocator.WakeEvent.Cluster;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.NodeChange;
import dev.quartermaster.control.cluster.NodeReadiness;
import dev.quartermaster.core.informer.EventHandler;
import java.util.Optional;

/**
 * What the allocator hears from its informers. A node, its allocation record or device slice is
 * indexed again, and told to the waiting room ({@link Waiters}) as the {@link WakeEvent} it is when
 * it could change where claims fit; a device class or compute domain is told; a workload's new spec
 * queues its gangs; a claim or task queues its own key (a placed claim's stray reservations and a
 * deleted claim's entries are garbage for the node's cleaner, whose key is queued); the gang ledger
 * queues every gang it holds a reservation for, and a workload, task or claim going queues them too
 * (one whose member is gone is removed).
 */
final class AllocatorTriggers {
  private AllocatorTriggers() {}

  /**
   * Whether a claim's change is one the allocator acts on: its request, owner or deletion, its
   * allocation, or the allocator's own word on it. Not the agents' prepare states, finalizers or
   * the scheduler's reservations, which make up most of a claim's writes.
   */
  static boolean allocatorReads(ResourceClaim o, ResourceClaim c) {
    return !o.spec().equals(c.spec())
        || !o.metadata().owner().equals(c.metadata().owner())
        || o.metadata().isDeleting() != c.metadata().isDeleting()
        || !o.status().allocation().equals(c.status().allocation())
        || !o.status().conditions().equals(c.status().conditions());
  }

  static void register(Informers informers, Allocator allocator) {
    var nodes = Optional.<WakeEvent>of(Cluster.NODES);
    var records = Optional.<WakeEvent>of(Cluster.RECORDS);
    var slices = Optional.<WakeEvent>of(Cluster.SLICES);
    informers
        .computeDomains()
        .addHandler(EventHandler.onAnyChange(d -> allocator.happened(Cluster.COMPUTE_DOMAINS)));
    informers
        .nodes()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Node n) {
                allocator.nodeChanged(n.metadata().name(), nodes);
              }

              @Override
              public void onUpdate(Node old, Node n) {
                if (NodeChange.isHeartbeatOnly(old, n)) {
                  // Nothing the index or the record's clean-up reads changed: at 10,000 nodes this
                  // is 1,000 updates a second that would each index a node and walk its record.
                  return;
                }
                // Labels: a gang's topology rule reads them.
                boolean matters =
                    NodeReadiness.isSchedulable(old) != NodeReadiness.isSchedulable(n)
                        || !old.spec().equals(n.spec())
                        || !old.metadata().labels().equals(n.metadata().labels());
                allocator.nodeChanged(n.metadata().name(), matters ? nodes : Optional.empty());
              }

              @Override
              public void onDelete(Node n) {
                allocator.nodeChanged(n.metadata().name(), nodes);
              }
            });
    informers
        .nodeAllocations()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(NodeAllocation a) {
                allocator.nodeChanged(a.metadata().name(), records);
              }

              @Override
              public void onUpdate(NodeAllocation old, NodeAllocation a) {
                allocator.nodeChanged(
                    a.metadata().name(), old.spec().equals(a.spec()) ? Optional.empty() : records);
              }

              @Override
              public void onDelete(NodeAllocation a) {
                allocator.recordDeleted(a.metadata().name());
                allocator.nodeChanged(a.metadata().name(), records);
              }
            });
    informers
        .slices()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(DeviceSlice s) {
                allocator.nodeChanged(s.spec().node(), slices);
              }

              @Override
              public void onUpdate(DeviceSlice old, DeviceSlice s) {
                allocator.nodeChanged(old.spec().node(), slices);
                allocator.nodeChanged(s.spec().node(), slices);
              }

              @Override
              public void onDelete(DeviceSlice s) {
                allocator.nodeChanged(s.spec().node(), slices);
              }
            });
    informers
        .deviceClasses()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(DeviceClass c) {
                allocator.happened(Cluster.DEVICE_CLASSES);
              }

              @Override
              public void onUpdate(DeviceClass o, DeviceClass c) {
                allocator.happened(Cluster.DEVICE_CLASSES);
              }
            });
    informers
        .claims()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(ResourceClaim c) {
                allocator.enqueue(AllocatorKey.of(c));
              }

              @Override
              public void onUpdate(ResourceClaim o, ResourceClaim c) {
                if (allocatorReads(o, c)) {
                  allocator.enqueue(AllocatorKey.of(c));
                }
                if (c.metadata().isDeleting() && !o.metadata().isDeleting()) {
                  allocator.memberGone();
                }
                if (c.status().allocation().isPresent() && o.status().allocation().isEmpty()) {
                  // A reservation left on another node by a lost race is garbage now that the claim
                  // is placed.
                  allocator.reservationsOf(c.metadata().uid()).keySet().stream()
                      .filter(n -> !n.equals(c.status().allocation().get().node()))
                      .forEach(n -> allocator.enqueue(AllocatorKey.node(n)));
                }
              }

              @Override
              public void onDelete(ResourceClaim c) {
                allocator.memberGone();
                // Its record entries are garbage now.
                c.status()
                    .allocation()
                    .ifPresent(a -> allocator.enqueue(AllocatorKey.node(a.node())));
                allocator
                    .reservationsOf(c.metadata().uid())
                    .keySet()
                    .forEach(n -> allocator.enqueue(AllocatorKey.node(n)));
              }
            });
    informers
        .workloads()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onUpdate(Workload o, Workload w) {
                // A gang's spec (its groups' replicas, so its shares, or its topology) is what its
                // decision asks for: a gang that waits and would fit now has nothing else to wake
                // it, when the change frees nothing.
                if (w.metadata().isDeleting() && !o.metadata().isDeleting()) {
                  allocator.memberGone();
                }
                if (!o.spec().equals(w.spec())) {
                  WorkloadGangs.of(w.spec())
                      .forEach(
                          g -> allocator.enqueue(AllocatorKey.gang(w.metadata().name(), g.name())));
                }
              }

              @Override
              public void onDelete(Workload w) {
                allocator.memberGone();
              }
            });
    informers
        .tasks()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Task t) {
                allocator.enqueue(AllocatorKey.task(t.metadata().name()));
              }

              @Override
              public void onUpdate(Task o, Task t) {
                // Its claims, its pin, or its end: not its progress through Scheduled, Preparing,
                // Running.
                if (!o.spec().equals(t.spec())
                    || o.metadata().isDeleting() != t.metadata().isDeleting()
                    || o.status().phase().isFinished() != t.status().phase().isFinished()) {
                  allocator.enqueue(AllocatorKey.task(t.metadata().name()));
                }
                if (t.metadata().isDeleting() || t.status().phase().isFinished()) {
                  allocator.memberGone();
                }
              }

              @Override
              public void onDelete(Task t) {
                allocator.memberGone();
              }
            });
    informers
        .gangLedgers()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(GangLedger l) {
                allocator.gangLedgerChanged(l.spec());
              }

              @Override
              public void onUpdate(GangLedger old, GangLedger l) {
                allocator.gangLedgerChanged(l.spec());
              }

              @Override
              public void onDelete(GangLedger l) {
                allocator.gangLedgerChanged(GangLedgerSpec.EMPTY);
              }
            });
  }
}
