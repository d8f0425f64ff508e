package dev.quartermaster.store.registry;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;
import java.util.Optional;

/**
 * An object is made for an owner, or given one, only while that owner exists with the uid named and
 * is not being deleted: the owner, read in the same transaction, is compared at its revision. The
 * owner's deletion cascades (its finalizer waits for a live list to show none of its objects) and
 * nothing else deletes an object whose owner is gone, so one made after that list — from a cache,
 * or by a write delayed in flight (issue 49: a task's create, retried by the etcd client past a
 * minority member's "no leader", landed after its workload's cascade had listed no tasks and let
 * the workload go) — would be left for ever. A claim owned by a task is judged by {@link
 * TaskClaimGuard}, which asks more of the task. Owners of kinds this API does not have are not
 * judged.
 */
final class OwnerGuard implements WriteRules {
  private final StoredObjects stored;

  OwnerGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    return next.metadata().owner().map(o -> judge(reads, next, o)).orElse(List.of());
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    var owner = next.metadata().owner();
    boolean given =
        owner.isPresent()
            && !current.metadata().owner().map(OwnerReference::uid).equals(owner.map(o -> o.uid()));
    return given ? judge(reads, next, owner.get()) : List.of();
  }

  private List<Compare> judge(Reads reads, ApiObject next, OwnerReference owner) {
    if (next instanceof ResourceClaim && owner.kind().equals(Kinds.TASK.name())) {
      return List.of();
    }
    var kind = Kinds.byName(owner.kind());
    if (kind.isEmpty()) {
      return List.of();
    }
    var key = StoredObjects.key(kind.get(), owner.name());
    var kv = reads.get(key);
    whyNot(kv.map(x -> stored.decode(kind.get(), x)), owner.uid())
        .ifPresent(
            w -> {
              throw new ApiException(
                  Reason.Conflict,
                  next.ref()
                      + " is refused: metadata.owner "
                      + owner.kind().toLowerCase(java.util.Locale.ROOT)
                      + "/"
                      + owner.name()
                      + " "
                      + w
                      + " (an object is made for, or given to, a live owner only)");
            });
    return List.of(new Compare.ModRevision(key, kv.get().modRevision()));
  }

  /** Why {@code found} is not the live owner of uid {@code uid}; empty if it is. */
  private static Optional<String> whyNot(Optional<? extends ApiObject> found, String uid) {
    if (found.isEmpty()) {
      return Optional.of("does not exist");
    }
    var meta = found.get().metadata();
    if (!meta.uid().equals(uid)) {
      return Optional.of("was re-created (uid " + meta.uid() + ", not " + uid + ")");
    }
    return meta.isDeleting() ? Optional.of("is being deleted") : Optional.empty();
  }
}
