package dev.quartermaster.control.allocator;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.deadline.TaskDeadlines;
import java.util.OptionalLong;

/**
 * When the holder of a device (a claim, by uid) gives it back, as the caches show it, on the
 * allocator's clock: at once when the claim is gone or going, or its tasks are finished or gone
 * (the release is under way); by the latest deadline of the tasks that use it ({@link
 * TaskDeadlines}); never known (empty) when one of them has no deadline, or a claim no task owns is
 * held (a stand-alone claim is given back when someone deletes it).
 */
final class HolderEnds {
  private final Informers informers;
  private final TaskDeadlines deadlines;

  HolderEnds(Informers informers, TaskDeadlines deadlines) {
    this.informers = informers;
    this.deadlines = deadlines;
  }

  /** The allocator's clock now (nanoseconds, monotonic). */
  long now() {
    return deadlines.now();
  }

  OptionalLong of(String uid) {
    long now = deadlines.now();
    var claim = informers.claims().cache().byIndex(Informers.BY_UID, uid).stream().findFirst();
    if (claim.isEmpty() || claim.get().metadata().isDeleting()) {
      return OptionalLong.of(now);
    }
    var c = claim.get();
    var users =
        informers.tasks().cache().byIndex(Informers.BY_CLAIM, c.metadata().name()).stream()
            .filter(t -> !t.metadata().isDeleting() && !t.status().phase().isFinished())
            .toList();
    if (users.isEmpty()) {
      boolean ownedByTask =
          c.metadata().owner().map(o -> Kinds.TASK.name().equals(o.kind())).orElse(false);
      return ownedByTask ? OptionalLong.of(now) : OptionalLong.empty();
    }
    long latest = now;
    for (var t : users) {
      var at = deadlines.deadlineOf(t);
      if (at.isEmpty()) {
        return OptionalLong.empty();
      }
      latest = Math.max(latest, at.getAsLong());
    }
    return OptionalLong.of(latest);
  }
}
