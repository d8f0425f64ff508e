package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.store.Txn.Compare;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A volume cannot be taken from under its tasks by a plain write: every new volume carries {@link
 * Volume#RELEASE_FINALIZER}, which no write may drop while the volume still exists in its plugin or
 * has claims (an operator's {@code qm apply} of the manifest, which lists no finalizers, would
 * otherwise make the next delete immediate), the spec is fixed once created (changing the plugin or
 * the access mode under live claims would void what the claims were granted on), and a claim leaves
 * the volume's list only once {@link VolumeClaimMachine} frees it: a claim still taken, or released
 * by its node but not yet detached by the controller, holds the volume from a next writer whoever
 * writes (I5).
 *
 * <p>A claim is granted only to a task incarnation that may still run on the claim's node: a write
 * that adds a claim reads the task in the same transaction and is refused if the task is gone,
 * re-created, finished, being deleted or bound elsewhere. The volume controller decides grants on
 * its cache of tasks, which may lag its cache of volumes: having seen a finished task's claim
 * released, it could grant that task the volume again from a task cache that has not yet seen it
 * finish — a claim nobody will use, holding the volume (and its delete) until the node lets go.
 */
final class VolumeGuard implements WriteRules {
  private final StoredObjects stored;

  VolumeGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (!(current instanceof Volume c) || !(next instanceof Volume n)) {
      return List.of();
    }
    if (!c.spec().equals(n.spec())) {
      throw ApiException.invalid(
          c.ref(),
          List.of(
              new Violation(
                  "spec", "is fixed once the volume exists; delete it and create a new one")));
    }
    boolean held = !c.status().claims().isEmpty() || !c.status().externalId().isEmpty();
    if (held
        && c.metadata().finalizers().contains(Volume.RELEASE_FINALIZER)
        && !n.metadata().finalizers().contains(Volume.RELEASE_FINALIZER)) {
      throw ApiException.invalid(
          c.ref(),
          List.of(
              new Violation(
                  "metadata.finalizers",
                  "must keep "
                      + Volume.RELEASE_FINALIZER
                      + " while the volume has claims or exists in its plugin"
                      + " (the volume controller removes it after DeleteVolume)")));
    }
    var dropped =
        c.status().claims().stream()
            .filter(
                was ->
                    !VolumeClaimMachine.mayLeave(was)
                        && n.status().claims().stream().noneMatch(now -> same(was, now)))
            .toList();
    if (!dropped.isEmpty()) {
      throw ApiException.invalid(
          c.ref(),
          List.of(
              new Violation(
                  "status.claims",
                  "must keep the claims of "
                      + dropped.stream().map(d -> d.task() + " (" + d.state() + ")").toList()
                      + ": a claim leaves the list only once the volume controller detached it (ControllerDetached)")));
    }
    var compares = new ArrayList<Compare>();
    for (var claim : n.status().claims()) {
      if (c.status().claims().stream().noneMatch(o -> o.heldBy(claim.task(), claim.taskUid()))) {
        compares.add(holderLive(reads, n, claim));
      }
    }
    return compares;
  }

  /**
   * The claim's task, as the store has it now, may still run on the claim's node; its revision
   * joins the write.
   */
  private Compare holderLive(Reads reads, Volume v, VolumeClaim claim) {
    var key = StoredObjects.key(Kinds.TASK, claim.task());
    var kv = reads.get(key);
    var why = whyNotLive(kv.map(x -> stored.decode(Kinds.TASK, x)), claim);
    if (why.isPresent()) {
      throw new ApiException(
          Reason.Conflict,
          v.ref()
              + ": a claim for task "
              + claim.task()
              + " on "
              + claim.node()
              + " is refused: "
              + why.get()
              + " (a claim is granted only to a task that may still run on its node)");
    }
    return new Compare.ModRevision(key, kv.get().modRevision());
  }

  private static Optional<String> whyNotLive(Optional<Task> task, VolumeClaim claim) {
    if (task.isEmpty()) {
      return Optional.of("it does not exist");
    }
    var t = task.get();
    if (!claim.taskUid().isEmpty() && !t.metadata().uid().equals(claim.taskUid())) {
      return Optional.of(
          "it was re-created (uid " + t.metadata().uid() + ", not " + claim.taskUid() + ")");
    }
    if (t.status().phase().isFinished()) {
      return Optional.of("it has " + t.status().phase());
    }
    if (t.metadata().isDeleting()) {
      return Optional.of("it is being deleted");
    }
    if (t.spec().node().filter(claim.node()::equals).isEmpty()) {
      return Optional.of(
          "it is bound to " + t.spec().node().orElse("no node") + ", not " + claim.node());
    }
    return Optional.empty();
  }

  /**
   * The same hold: one task incarnation's claim, on one node, in one mode (its state may have
   * moved).
   */
  private static boolean same(VolumeClaim a, VolumeClaim b) {
    return a.heldBy(b.task(), b.taskUid()) && a.node().equals(b.node()) && a.mode() == b.mode();
  }
}
