package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.workload.WorkerNames;

/**
 * The workers an admission no longer covers must be gone before it shrinks (a scale-down) or goes
 * (an evicted entry's release): the quota covers what runs. Their names are fixed ({@code
 * <workload>-<group>-<ordinal>}), so each one freed is read, and its read joins the transaction
 * (one created meanwhile fails it).
 */
final class SurplusTasks {
  private SurplusTasks() {}

  /** Refuses {@code was} of {@code workload} becoming {@code now} while a freed worker runs. */
  static void refuseWhileRunning(
      ComparedReads reads, QuotaLedger next, String workload, Admitted was, Admitted now) {
    for (var g : was.replicas().entrySet()) {
      int kept = now.replicas().getOrDefault(g.getKey(), 0);
      for (int ordinal = kept; ordinal < g.getValue(); ordinal++) {
        var name = WorkerNames.task(workload, g.getKey(), ordinal);
        var task = reads.get(Kinds.TASK, name);
        if (task.isPresent()
            && !task.get().status().phase().isFinished()
            && task.get().metadata().owner().map(o -> o.uid().equals(now.uid())).orElse(false)) {
          throw new ApiException(
              Reason.Conflict,
              next.ref()
                  + ": spec.admitted."
                  + workload
                  + ".replicas."
                  + g.getKey()
                  + ": task "
                  + name
                  + " still runs; a workload's admission shrinks as its surplus tasks go");
        }
      }
    }
  }
}
