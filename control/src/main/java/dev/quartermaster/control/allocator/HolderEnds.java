package dev.quartermaster.control.allocator;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.deadline.TaskDeadlines;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * When the holder of a device (a claim, by uid) gives it back, as the caches show it, on the
 * allocator's clock: at once when the claim is gone or going, or its tasks are finished or gone
 * (the release is under way); by the latest deadline of the tasks that use it ({@link
 * TaskDeadlines}); never known (empty) when one of them has no deadline, or a claim no task owns is
 * held (a stand-alone claim is given back when someone deletes it). And when tasks placed now would
 * give theirs back ({@link #ifPlacedNow}).
 */
final class HolderEnds {
  /**
   * How much later than its deadline a task placed now may give its devices back: its start after
   * placement (prepare) and its stop after the deadline (kill, unprepare). A job backfills onto a
   * reservation only if it ends before the head's start by its deadline plus this.
   */
  static final Duration START_AND_STOP = Duration.ofSeconds(5);

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

  /** How long from now until {@code nanos} on the allocator's clock. */
  Duration until(long nanos) {
    return deadlines.until(nanos);
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

  /**
   * When a key whose tasks are {@code tasks} gives its devices back at the latest, were it placed
   * now: each task's deadline plus {@link #START_AND_STOP}; empty when one has none.
   */
  OptionalLong ifPlacedNow(List<Task> tasks) {
    long latest = Long.MIN_VALUE;
    for (var t : tasks) {
      var d = t.spec().activeDeadline();
      if (d.isEmpty()) {
        return OptionalLong.empty();
      }
      latest = Math.max(latest, deadlines.now() + d.get().plus(START_AND_STOP).toNanos());
    }
    return tasks.isEmpty() ? OptionalLong.empty() : OptionalLong.of(latest);
  }
}
