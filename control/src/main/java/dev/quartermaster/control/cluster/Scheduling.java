package dev.quartermaster.control.cluster;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskTransitions;
import java.util.ArrayList;
import java.util.Optional;

/**
 * What scheduling a task writes, in one home for its two writers: the scheduler, and the allocator
 * when the claims it allocates are all of a task's (its one decision then pins the task, allocates
 * the claims and schedules the task in one transaction). A task becomes {@code Scheduled} on the
 * node of all its claims in the same transaction that reserves each claim for it, so an agent never
 * runs a task on a claim that does not name it.
 */
public final class Scheduling {
  private Scheduling() {}

  /**
   * {@code t} Scheduled on {@code node}, saying why (its claims' node, or where a claimless task
   * was put).
   */
  public static Task scheduled(Task t, String node) {
    var message =
        t.spec().claims().isEmpty()
            ? "placed on node " + node
            : "claims " + String.join(",", t.spec().claims()) + " allocated on node " + node;
    return t.withStatus(TaskTransitions.scheduled(t.status(), node, message));
  }

  /** The event that says so, for the task's events. */
  public static String scheduledEvent(Task scheduled) {
    return "scheduled to node "
        + scheduled.status().node().orElse("?")
        + (scheduled.spec().claims().isEmpty() ? "" : ": " + scheduled.status().message());
  }

  /**
   * {@code claim} reserved for task {@code task} as well (its status; reservedFor sorted); empty if
   * it is already.
   */
  public static Optional<ResourceClaim> reserved(ResourceClaim claim, String task) {
    var s = claim.status();
    if (s.reservedFor().contains(task)) {
      return Optional.empty();
    }
    var reserved = new ArrayList<>(s.reservedFor());
    reserved.add(task);
    reserved.sort(String::compareTo);
    return Optional.of(
        claim.withStatus(
            new ResourceClaimStatus(s.allocation(), reserved, s.prepare(), s.conditions())));
  }
}
