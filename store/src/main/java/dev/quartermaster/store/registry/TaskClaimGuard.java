package dev.quartermaster.store.registry;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;
import java.util.Optional;

/**
 * A claim owned by a task is made only while that task may still use it ({@link
 * TaskTransitions#usesClaims}): the task, read in the same transaction, exists with the owner's
 * uid, has not finished and is not being deleted. A finished task's claims are released; one made
 * for it from a cache that has not yet seen it finish would hold devices for nobody until the next
 * look deleted it.
 */
final class TaskClaimGuard implements WriteRules {
  private final StoredObjects stored;

  TaskClaimGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    if (!(next instanceof ResourceClaim c)) {
      return List.of();
    }
    var owner = c.metadata().owner().filter(o -> o.kind().equals(Kinds.TASK.name()));
    if (owner.isEmpty()) {
      return List.of();
    }
    var key = StoredObjects.key(Kinds.TASK, owner.get().name());
    var kv = reads.get(key);
    var task = kv.map(x -> stored.decode(Kinds.TASK, x));
    whyNot(task, owner.get().uid())
        .ifPresent(
            why -> {
              throw new ApiException(
                  Reason.Conflict,
                  c.ref()
                      + " is refused: its owner task "
                      + owner.get().name()
                      + " "
                      + why
                      + " (a claim is made only for a task that may still use it)");
            });
    return List.of(new Compare.ModRevision(key, kv.get().modRevision()));
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    return List.of();
  }

  private static Optional<String> whyNot(Optional<Task> task, String uid) {
    if (task.isEmpty()) {
      return Optional.of("does not exist");
    }
    var t = task.get();
    if (!t.metadata().uid().equals(uid)) {
      return Optional.of("was re-created (uid " + t.metadata().uid() + ", not " + uid + ")");
    }
    if (!TaskTransitions.usesClaims(t.status().phase())) {
      return Optional.of("has " + t.status().phase());
    }
    if (t.metadata().isDeleting()) {
      return Optional.of("is being deleted");
    }
    return Optional.empty();
  }
}
