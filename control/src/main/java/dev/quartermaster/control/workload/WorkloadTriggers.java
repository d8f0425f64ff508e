package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.informer.EventHandler;
import java.util.Optional;

/**
 * What wakes the workload controller: its workload (any change), a task of it (its end or its
 * deletion: a slot to refill; a phase change: only the status counts, one pass for a burst), a
 * volume or task name another held being freed, a claim the allocator cannot place (or now can; a
 * gang's members, one pass for the burst), a claim made under a task already pinned (a gang placed
 * in name only), a device class coming or going (every workload's Schedulable condition).
 */
final class WorkloadTriggers {
  private WorkloadTriggers() {}

  private static boolean waitsForGang(ResourceClaim c) {
    return Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED)
        .filter(
            a ->
                a.reason().equals(GangStatus.WAITING_FOR_GANG)
                    || a.reason().equals(GangStatus.NEVER_FITS))
        .isPresent();
  }

  static void register(Informers informers, ControlLoop loop, WorkloadController controller) {
    // An admission, or a release: the workload may create its tasks now, or its status says so.
    informers
        .quotaLedgers()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(QuotaLedger l) {
                l.spec().admitted().keySet().forEach(loop::enqueue);
              }

              @Override
              public void onUpdate(QuotaLedger o, QuotaLedger l) {
                var changed = new java.util.HashSet<String>();
                l.spec()
                    .admitted()
                    .forEach(
                        (n, a) -> {
                          if (!a.equals(o.spec().admitted().get(n))) {
                            changed.add(n);
                          }
                        });
                o.spec()
                    .admitted()
                    .keySet()
                    .forEach(
                        n -> {
                          if (!l.spec().admitted().containsKey(n)) {
                            changed.add(n);
                          }
                        });
                changed.forEach(loop::enqueue);
              }

              @Override
              public void onDelete(QuotaLedger l) {
                l.spec().admitted().keySet().forEach(loop::enqueue);
              }
            });
    // A queue created (a workload waited for it to exist), or its cohort changed.
    informers
        .queues()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Queue q) {
                informers
                    .workloads()
                    .cache()
                    .byIndex(Informers.BY_QUEUE, q.metadata().name())
                    .forEach(w -> loop.enqueue(w.metadata().name()));
              }

              @Override
              public void onUpdate(Queue o, Queue q) {}

              @Override
              public void onDelete(Queue q) {
                onAdd(q);
              }
            });
    informers
        .workloads()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Workload w) {
                loop.enqueue(w.metadata().name());
              }

              @Override
              public void onUpdate(Workload o, Workload w) {
                loop.enqueue(w.metadata().name());
              }

              @Override
              public void onDelete(Workload w) {
                controller.forget(w.metadata().uid());
                loop.enqueue(w.metadata().name());
              }
            });
    informers
        .tasks()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Task t) {
                controller.enqueueWorkloadOf(t);
              }

              @Override
              public void onUpdate(Task o, Task t) {
                if (o.metadata().isDeleting() != t.metadata().isDeleting()
                    || o.status().phase().isFinished() != t.status().phase().isFinished()) {
                  controller.enqueueWorkloadOf(
                      t); // a slot to refill or a restart to pace: a decision
                } else if (o.status().phase() != t.status().phase()) {
                  // Pending, Scheduled, Preparing, Running: only the status counts change. One pass
                  // for a
                  // burst of them (a 1,000-task apply moves each task three times, and a pass reads
                  // every task).
                  Optional.ofNullable(t.metadata().labels().get(Labels.WORKLOAD))
                      .ifPresent(w -> loop.enqueueAfter(w, WorkloadController.COUNTS_PASS_DELAY));
                }
              }

              @Override
              public void onDelete(Task t) {
                controller.enqueueWorkloadOf(t);
                // A name another workload wanted is free now.
                controller.taskNameFreed(t.metadata().name());
              }
            });
    informers
        .volumes()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onUpdate(Volume o, Volume v) {
                // A slot waits for its volume to go, or to be let go by an earlier workload of its
                // name.
                if (o.metadata().isDeleting() != v.metadata().isDeleting()
                    || !o.metadata().owner().equals(v.metadata().owner())) {
                  controller.enqueueWorkloadOf(v);
                }
              }

              @Override
              public void onDelete(Volume v) {
                controller.enqueueWorkloadOf(v);
                controller.volumeNameFreed(v.metadata().name());
              }
            });
    informers
        .claims()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(ResourceClaim c) {
                // A claim made under a task already pinned (its claim was deleted under it): it
                // can go only to that node, and if it cannot, a gang of the task is placed in name
                // only (PartlyPlaced), which only a pass of the workload sees. Claims are made
                // before their tasks are pinned, so a normal start never comes here.
                c.metadata()
                    .owner()
                    .filter(o -> o.kind().equals(Kinds.TASK.name()))
                    .flatMap(o -> informers.tasks().cache().get(o.name()))
                    .filter(t -> t.spec().node().isPresent())
                    .flatMap(t -> Optional.ofNullable(t.metadata().labels().get(Labels.WORKLOAD)))
                    .ifPresent(w -> loop.enqueueAfter(w, WorkloadController.COUNTS_PASS_DELAY));
              }

              @Override
              public void onUpdate(ResourceClaim o, ResourceClaim c) {
                // Only what the Schedulable condition and a gang's line read: a claim the allocator
                // cannot place (a gang's member waiting among them), or no longer.
                if ((Informers.unplaceable(o) || Informers.unplaceable(c))
                    && !o.status().conditions().equals(c.status().conditions())) {
                  var workload = Optional.ofNullable(c.metadata().labels().get(Labels.WORKLOAD));
                  if (waitsForGang(o) || waitsForGang(c)) {
                    // The allocator words or places every member's claims at once: one pass for
                    // the burst, not one per member.
                    workload.ifPresent(
                        w -> loop.enqueueAfter(w, WorkloadController.COUNTS_PASS_DELAY));
                  } else {
                    workload.ifPresent(loop::enqueue);
                  }
                }
              }
            });
    informers
        .deviceClasses()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(DeviceClass c) {
                informers.workloads().cache().keys().forEach(loop::enqueue);
              }

              @Override
              public void onDelete(DeviceClass c) {
                informers.workloads().cache().keys().forEach(loop::enqueue);
              }
            });
  }
}
