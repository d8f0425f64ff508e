package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;

/**
 * I4 closed in the store: a workload controller's create or scale-down of a task ({@link
 * SpecDecision}) takes effect only while the workload is still at the generation the decision was
 * made on, atomically with the write (the workload's revision joins the transaction). The window
 * between the controller's live read of the spec and its write cannot otherwise be closed: a scale
 * back up in it cost a wanted, running worker; a scale down in it, a worker above the replicas.
 * Only the deciding write is judged: a task's creation, the delete that marks it deleting (removing
 * its finalizers later is never held up), and the allocator's write that pins a gang's member (a
 * gang placed on a spec scaled up meanwhile would hold devices for too few members).
 */
final class SpecDecisionGuard implements WriteRules {
  private final StoredObjects stored;

  SpecDecisionGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    return next instanceof Task t ? judge(reads, t, SpecDecision.CREATED_AT, "created") : List.of();
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (next instanceof Task t && current instanceof Task before) {
      var mark = t.metadata().labels().get(SpecDecision.GANG_PLACED_AT);
      if (mark != null
          && !mark.equals(before.metadata().labels().get(SpecDecision.GANG_PLACED_AT))) {
        return judge(reads, t, SpecDecision.GANG_PLACED_AT, "placed with its gang");
      }
    }
    return List.of();
  }

  @Override
  public List<Compare> beforeDelete(Reads reads, ApiObject current) {
    return current instanceof Task t && !t.metadata().isDeleting()
        ? judge(reads, t, SpecDecision.SCALE_DOWN_AT, "deleted for a scale-down")
        : List.of();
  }

  private List<Compare> judge(Reads reads, Task t, String label, String what) {
    var mark = t.metadata().labels().get(label);
    var owner = t.metadata().owner().filter(o -> o.kind().equals(Kinds.WORKLOAD.name()));
    if (mark == null || owner.isEmpty()) {
      return List.of();
    }
    var key = StoredObjects.key(Kinds.WORKLOAD, owner.get().name());
    var kv = reads.get(key);
    if (kv.isEmpty()) {
      return List.of(new Compare.ModRevision(key, 0));
    }
    var w = stored.decode(Kinds.WORKLOAD, kv.get());
    if (w.metadata().uid().equals(owner.get().uid())
        && !w.metadata().isDeleting()
        && !Long.toString(w.metadata().generation()).equals(mark)) {
      throw new ApiException(
          Reason.Conflict,
          t.ref()
              + " was to be "
              + what
              + " on generation "
              + mark
              + " of "
              + w.ref()
              + ", which is now at generation "
              + w.metadata().generation()
              + "; the controller decides again on the newest spec");
    }
    return List.of(new Compare.ModRevision(key, kv.get().modRevision()));
  }
}
