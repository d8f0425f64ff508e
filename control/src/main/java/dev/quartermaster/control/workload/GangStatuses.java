package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.WorkerGroup;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * A gang's line in its workload's status, from the group's tasks and their claims as the caches
 * show them. A pure function, so it is tested on its own.
 *
 * <ul>
 *   <li><b>Placed</b> once a live member is bound to a node or one of its claims is allocated: the
 *       allocator pins a gang's members and allocates their claims in the one transaction that
 *       places the gang, and places no member alone before that, so either signal says the gang
 *       holds devices, whichever cache shows it first.
 *   <li><b>Finished</b> once every slot's task has finished and none is to be restarted: the job is
 *       over and waits for nothing.
 *   <li><b>Waiting</b> otherwise. While fewer than {@code minMember} members exist the allocator
 *       writes nothing, so this says how many do; once they all exist, the reason and message are
 *       the ones the allocator wrote on the members' claims ({@code WaitingForGang: needs 4 × (4
 *       gpu) at once ...}, or a refusal such as {@code NoSuchDeviceClass}).
 * </ul>
 *
 * {@code since} is kept while the state stays, so a wait is timed from when it began.
 */
final class GangStatuses {
  private GangStatuses() {}

  /**
   * @param tasks the group's tasks (any owner: only this workload's count)
   * @param claims the group's claims (only those of live members count)
   * @param previous the gang's status as last written
   * @param now the time a new state starts at
   */
  static Optional<GangStatus> of(
      WorkerGroup group,
      String workloadUid,
      List<Task> tasks,
      List<ResourceClaim> claims,
      Optional<GangStatus> previous,
      Instant now) {
    if (group.gang().isEmpty()) {
      return Optional.empty();
    }
    var next = decide(group, workloadUid, tasks, claims);
    var since =
        previous.filter(p -> p.state() == next.state()).flatMap(GangStatus::since).orElse(now);
    return Optional.of(
        new GangStatus(next.state(), next.reason(), next.message(), Optional.of(since)));
  }

  private static GangStatus decide(
      WorkerGroup group, String workloadUid, List<Task> tasks, List<ResourceClaim> claims) {
    int min = group.gangMinMember();
    var members = new HashSet<String>();
    int finishedForGood = 0;
    boolean bound = false;
    for (var t : tasks) {
      if (!t.metadata().owner().map(o -> o.uid().equals(workloadUid)).orElse(false)
          || t.metadata().isDeleting()) {
        continue;
      }
      var phase = t.status().phase();
      if (phase.isFinished()) {
        if (!GroupPlan.replace(group.restartPolicy(), phase)) {
          finishedForGood++;
        }
        continue;
      }
      members.add(t.metadata().uid());
      bound |= t.spec().node().isPresent() || phase != TaskPhase.Pending;
    }
    var memberClaims =
        claims.stream()
            .filter(
                c ->
                    !c.metadata().isDeleting()
                        && c.metadata().owner().map(o -> members.contains(o.uid())).orElse(false))
            .sorted(Comparator.comparing((ResourceClaim c) -> c.metadata().name()))
            .toList();
    if (bound || memberClaims.stream().anyMatch(c -> c.status().allocation().isPresent())) {
      return new GangStatus(GangState.Placed, "", "");
    }
    if (members.isEmpty() && finishedForGood >= group.replicas()) {
      return new GangStatus(GangState.Finished, "", "");
    }
    if (members.size() < min) {
      return waiting(members.size() + " of " + min + " members exist so far");
    }
    return memberClaims.stream()
        .flatMap(
            c ->
                Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED)
                    .filter(a -> !a.isTrue() && !a.reason().isEmpty())
                    .stream())
        .findFirst()
        .map(a -> new GangStatus(GangState.Waiting, a.reason(), a.message()))
        .orElseGet(
            () -> waiting("all " + min + " members exist; the allocator has not decided yet"));
  }

  private static GangStatus waiting(String message) {
    return new GangStatus(GangState.Waiting, GangStatus.WAITING_FOR_GANG, message);
  }
}
